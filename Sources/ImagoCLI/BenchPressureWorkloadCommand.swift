import ArgumentParser
import Foundation
import ImagoBench

/// `imago bench-pressure-workload JSON`: the pressure scenario's workload in this fresh process
/// (which the bench has put in a memory cgroup). Prints a progress line per finished load as
/// it goes, then the result as one JSON line (`PressureWorkloadOutput`).
struct BenchPressureWorkloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-pressure-workload",
        abstract: "Load a pressure workload and print its JSON result (used by bench and bench-check).",
        shouldDisplay: false)

    @Argument(help: "A PressureWorkload as JSON.") var workload: String

    func run() async throws {
        let workload = try JSONDecoder().decode(PressureWorkload.self, from: Data(self.workload.utf8))
        let result = await PressureWorkloadRunner.run(workload) { loaded, progress in
            // Unbuffered writes: if the kernel kills this process, the parent still sees every
            // line written before the kill (print's buffer would be lost).
            Self.write(PressureWorkloadOutput.progressLine(loaded: loaded, progress))
        }
        Self.write(PressureWorkloadOutput.resultLine(result))
    }

    private static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
