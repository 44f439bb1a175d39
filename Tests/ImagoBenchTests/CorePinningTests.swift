import Foundation
import Testing
@testable import ImagoBench
import ImagoTestSupport

/// The CPU-bound scenarios' pin: one core while it lasts, the previous set after, and inherited
/// by the processes a measurement starts (the peers' and the cold-process children).
@Suite struct CorePinningTests {
    /// On a thread of its own (`onOwnThread`): the pin applies to the calling thread, which must
    /// not be one of the cooperative pool's that the other tests share.
    @Test(.enabled(if: CorePinning.chosenCore() != nil, "the process may run on one CPU only"))
    func aPinnedMeasurementRunsOnOneCoreAndItsChildrenToo() async throws {
        let (before, core, inside, child, after) = try await onOwnThread {
            let before = CorePinning.allowedCPUs()
            let (core, inside, child) = try CorePinning.pinned { core -> (Int?, [Int], String) in
                (core, CorePinning.allowedCPUs(), try Self.childsAllowedCPUs())
            }
            return (before, core, inside, child, CorePinning.allowedCPUs())
        }
        #expect(core == before.last)
        #expect(inside == [before.last!])
        #expect(child == "\(before.last!)")
        #expect(after == before)
    }

    @Test func theReportSaysWhereTheScenariosRan() async {
        #expect(CorePinning.reportLine(core: 1).hasPrefix("CPU 1 for the decode and thumbnail scenarios"))
        #expect(CorePinning.reportLine(core: nil).hasPrefix("not pinned"))
        // The machine's description runs `swift --version`: waited for on a thread of its own.
        #expect(await onOwnThread { MachineInfo.current().markdown }.contains("| pinned to | "))
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
