import Foundation
import Testing
@testable import ImagoBench

/// The CPU-bound scenarios' pin: one core while it lasts, the previous set after, and inherited
/// by the processes a measurement starts (the peers' and the cold-process children).
@Suite struct CorePinningTests {
    @Test(.enabled(if: CorePinning.chosenCore() != nil, "the process may run on one CPU only"))
    func aPinnedMeasurementRunsOnOneCoreAndItsChildrenToo() throws {
        let before = CorePinning.allowedCPUs()
        let (inside, child) = try CorePinning.pinned { core -> ([Int], String) in
            #expect(core == before.last)
            return (CorePinning.allowedCPUs(), try Self.childsAllowedCPUs())
        }
        #expect(inside == [before.last!])
        #expect(child == "\(before.last!)")
        #expect(CorePinning.allowedCPUs() == before)
    }

    @Test func theReportSaysWhereTheScenariosRan() {
        #expect(CorePinning.reportLine(core: 1).hasPrefix("CPU 1 for the decode and thumbnail scenarios"))
        #expect(CorePinning.reportLine(core: nil).hasPrefix("not pinned"))
        #expect(MachineInfo.current().markdown.contains("| pinned to | "))
    }

    /// `Cpus_allowed_list` of a child process started now, as the kernel prints it ("1", "0-1").
    private static func childsAllowedCPUs() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "grep Cpus_allowed_list /proc/self/status"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }
}
