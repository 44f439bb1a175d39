import XCTest
@testable import ImagoBench

/// The pressure workload's plan, the child's output protocol, and the rows and goals made of runs.
final class PressureWorkloadTests: XCTestCase {
    func testTheMixIsTwoThirdsTwoMPAQuarterTwelveMPTheRestFortyMP() {
        let sizes = PressurePlan.sizes(count: 300)
        XCTAssertEqual(sizes.filter { $0 == 2 }.count, 200)
        XCTAssertEqual(sizes.filter { $0 == 12 }.count, 75)
        XCTAssertEqual(sizes.filter { $0 == 40 }.count, 25)
        XCTAssertEqual(PressurePlan.sizes(count: 120).count, 120)
    }

    func testTheOrderIsAShuffleFixedByItsSeed() {
        let order = PressurePlan.order(count: 300)
        XCTAssertEqual(order, PressurePlan.order(count: 300))
        XCTAssertNotEqual(order, PressurePlan.sizes(count: 300))
        XCTAssertEqual(order.sorted(), PressurePlan.sizes(count: 300).sorted())
        XCTAssertNotEqual(order, PressurePlan.order(count: 300, seed: 11))
    }

    func testPathsAreDistinctPerLoad() {
        let paths = PressurePlan.order(count: 300).enumerated().map { PressurePlan.path(index: $0, megapixels: $1) }
        XCTAssertEqual(Set(paths).count, 300)
    }

    func testAKilledChildsProgressLinesSayHowFarItGotAndWhatItHadSeen() {
        let progress = { (events: Int) in PressureWorkloadOutput.Progress(counters: ["memoryPressureEvents": events], peakResidentBytes: 9) }
        let output = [PressureWorkloadOutput.progressLine(loaded: true, progress(0)),
                      PressureWorkloadOutput.progressLine(loaded: false, progress(1)),
                      PressureWorkloadOutput.progressLine(loaded: true, progress(2))].joined(separator: "\n") + "\n+ {trunc"
        let parsed = PressureWorkloadOutput.parse(output)
        XCTAssertNil(parsed.result)
        XCTAssertEqual(parsed.loaded, 3, "a line cut short by the kill still marks a finished load")
        XCTAssertEqual(parsed.failed, 1)
        XCTAssertEqual(parsed.lastProgress, progress(2))
    }

    func testAFinishedChildsResultLineIsRead() {
        let result = PressureWorkloadResult(loadsAttempted: 2, loadsCompleted: 1, failures: ["httpStatus(404)": 1],
                                            wallSeconds: 1.5, counters: ["decodes": 1], peakResidentBytes: 1 << 20)
        let progress = PressureWorkloadOutput.progressLine(loaded: true, .init(counters: [:], peakResidentBytes: nil))
        let parsed = PressureWorkloadOutput.parse(progress + "\n" + PressureWorkloadOutput.resultLine(result) + "\n")
        XCTAssertEqual(parsed.result, result)
        XCTAssertEqual(parsed.loaded, 1)
    }

    private func measured(limit: Int?, kills: Int, completed: Int, finished: Bool, wall: Double) -> PressureRun.Outcome {
        let result = PressureWorkloadResult(loadsAttempted: 300, loadsCompleted: completed, failures: [:], wallSeconds: wall,
                                            counters: ["decodes": completed], peakResidentBytes: 100 << 20)
        return .measured(PressureRun.Measurement(
            mode: .defaults, limitBytes: limit, loadsTotal: 300, loadsCompleted: completed, failures: [:], loadsFailed: 0, oomKills: kills,
            peakCgroupBytes: limit.map { $0 - (1 << 20) } ?? (700 << 20), result: finished ? result : nil, lastProgress: nil,
            elapsedSeconds: wall + 0.5, end: finished ? .exited(0) : .signalled(SIGKILL), errorTail: ""))
    }

    func testRowsRelateThroughputToTheUnlimitedRunAndGoalsJudgeTheDefaultsAt256MiB() {
        let runs = [
            PressureRows.Run(limitBytes: nil, mode: .defaults, outcome: measured(limit: nil, kills: 0, completed: 300, finished: true, wall: 10)),
            PressureRows.Run(limitBytes: 256 << 20, mode: .defaults,
                             outcome: measured(limit: 256 << 20, kills: 0, completed: 300, finished: true, wall: 20)),
            PressureRows.Run(limitBytes: 512 << 20, mode: .defaults,
                             outcome: measured(limit: 512 << 20, kills: 1, completed: 40, finished: false, wall: 3)),
        ]
        let rows = PressureRows.rows(scenario: "pressure", loads: 300, concurrency: 8, runs: runs)
        let relative = rows.first { $0.metric == "throughput-vs-unlimited" && $0.parameter("limit") == "256MiB" }
        XCTAssertEqual(relative?.p50 ?? 0, 0.5, accuracy: 1e-9)
        let killed = rows.filter { $0.parameter("limit") == "512MiB" }
        XCTAssertEqual(killed.first { $0.metric == "oom-kills" }?.p50, 1)
        XCTAssertEqual(killed.first { $0.metric == "loads-completed" }?.p50, 40)
        XCTAssertNotNil(killed.first { $0.metric == "throughput" }?.skipped)
        XCTAssertFalse(rows.contains { $0.metric == "cache-trims" }, "a counter the workload did not report gets no row")
        let goals = GoalCheck.pressureRows(rows)
        XCTAssertEqual(goals.map(\.verdict), [.pass, .pass, .pass])
        XCTAssertTrue(PressureTable.markdown(rows).contains("| 512MiB | defaults | **1** | 40 of 300 |"))
    }

    func testSkippedRunsSaySkippedWithTheReason() {
        let runs = [PressureRows.Run(limitBytes: 256 << 20, mode: .defaults, outcome: .skipped("cgroup v2: no memory controller"))]
        let rows = PressureRows.rows(scenario: "pressure", loads: 300, concurrency: 8, runs: runs)
        XCTAssertTrue(rows.allSatisfy { $0.skipped == "cgroup v2: no memory controller" })
        XCTAssertEqual(GoalCheck.pressureRows(rows).map(\.verdict), [.notMeasured])
        XCTAssertTrue(PressureTable.markdown(rows).contains("skipped: cgroup v2: no memory controller"))
    }
}
