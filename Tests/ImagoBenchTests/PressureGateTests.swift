import XCTest
@testable import ImagoBench

/// bench-check's pressure verdict is absolute: a kill always fails, a skip never does.
final class PressureGateTests: XCTestCase {
    private let limit = 256 << 20

    private func run(oomKills: Int = 0, completed: Int = 300, peak: Int? = 200 << 20, end: ChildEnd = .exited(0),
                     finished: Bool = true) -> PressureRun.Outcome {
        let result = PressureWorkloadResult(loadsAttempted: 300, loadsCompleted: completed, failures: [:], wallSeconds: 20,
                                            counters: ["decodes": completed], peakResidentBytes: 180 << 20)
        return .measured(PressureRun.Measurement(
            mode: .defaults, limitBytes: limit, loadsTotal: 300, loadsCompleted: completed, failures: [:], loadsFailed: 0, oomKills: oomKills,
            peakCgroupBytes: peak, result: finished ? result : nil, lastProgress: nil, elapsedSeconds: 21, end: end, errorTail: ""))
    }

    func testACleanRunPasses() {
        let verdict = PressureGate.verdict(run())
        XCTAssertEqual(verdict.status, .pass)
        XCTAssertEqual(verdict.exitStatus, 0)
        XCTAssertTrue(verdict.lines.allSatisfy { $0.hasSuffix("PASS") }, verdict.lines.joined(separator: "\n"))
    }

    func testAnOOMKillFailsTheGateWithExitTwo() {
        let verdict = PressureGate.verdict(run(oomKills: 1, completed: 37, peak: limit, end: .signalled(SIGKILL),
                                               finished: false))
        XCTAssertEqual(verdict.status, .fail)
        XCTAssertEqual(verdict.exitStatus, 2)
        XCTAssertTrue(verdict.conclusion.contains("oom-kills 1"), verdict.conclusion)
        XCTAssertTrue(verdict.lines.contains { $0.contains("oom-kills") && $0.hasSuffix("FAIL") })
    }

    /// Even a kill the workload survived (another process in the cgroup) fails: the count must be 0.
    func testAnyKillFailsEvenWhenEveryLoadCompleted() {
        XCTAssertEqual(PressureGate.verdict(run(oomKills: 1)).status, .fail)
    }

    func testUnfinishedLoadsOrAPeakAboveTheLimitFail() {
        XCTAssertEqual(PressureGate.verdict(run(completed: 299)).status, .fail)
        XCTAssertEqual(PressureGate.verdict(run(peak: limit + 4096)).status, .fail)
        XCTAssertEqual(PressureGate.verdict(run(end: .exited(1))).status, .fail)
    }

    func testASkippedRunDoesNotFailAndSaysWhy() {
        let verdict = PressureGate.verdict(.skipped("cgroup v2: memory controller not offered"))
        XCTAssertEqual(verdict.status, .skipped)
        XCTAssertEqual(verdict.exitStatus, 0)
        XCTAssertTrue(verdict.lines[0].contains("skipped: cgroup v2: memory controller not offered"))
        XCTAssertTrue(verdict.conclusion.contains("not a failure"))
    }

    func testAFailedPressureRunOverridesTheBaselineComparison() {
        let failed = PressureGate.verdict(run(oomKills: 1, finished: false))
        let passed = PressureGate.verdict(run())
        let skipped = PressureGate.verdict(.skipped("no cgroup"))
        XCTAssertEqual(PressureGate.exitStatus(comparison: 0, pressure: failed), 2)
        XCTAssertEqual(PressureGate.exitStatus(comparison: 4, pressure: failed), 2)
        XCTAssertEqual(PressureGate.exitStatus(comparison: 4, pressure: passed), 4)
        XCTAssertEqual(PressureGate.exitStatus(comparison: 0, pressure: skipped), 0)
        XCTAssertEqual(PressureGate.exitStatus(comparison: 2, pressure: skipped), 2)
    }
}
