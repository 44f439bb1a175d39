import Foundation
import ImagoConformance
import ImagoConformanceSubjects
import Synchronization
import XCTest

/// `RepeatedConformanceRun`: a verdict that differs between runs is a flip, with its counts.
@MainActor
final class RepeatedRunTests: XCTestCase {
    /// A check whose verdict is decided by a counter: it fails on the runs `failing` names.
    private final class Counter: Sendable {
        private let count = Mutex(0)

        func next() -> Int {
            count.withLock { count in
                count += 1
                return count
            }
        }
    }

    private func countingCheck(_ rule: String, failing: Set<Int>) -> ConformanceCheck {
        let runs = Counter()
        return ConformanceCheck(rule, "fails on runs \(failing.sorted())") { run in
            let number = runs.next()
            run.note("run \(number)")
            try run.expect(!failing.contains(number), "run \(number) fails by design")
        }
    }

    func testAVerdictThatDiffersBetweenRunsIsAFlipWithCounts() async throws {
        let runner = ConformanceRunner(checks: [countingCheck("FLAKY-1", failing: [2]), countingCheck("STEADY-1", failing: [])])
        let report = try await RepeatedConformanceRun(runner: runner, times: 3).run([MutantSubjects.reference])
        XCTAssertEqual(report.runs, 3)
        XCTAssertEqual(report.flips, [VerdictFlip(subject: "toy-reference", rule: "FLAKY-1", counts: ["pass": 2, "fail": 1])])
        XCTAssertEqual(report.flips.first?.description, "FLAKY-1 on toy-reference: pass 2, fail 1")
        XCTAssertFalse(report.meetsExpectation)
        // The combined result is the failing run's, with its evidence.
        let flaky = try XCTUnwrap(report.subjects.first?.result(for: "FLAKY-1"))
        XCTAssertEqual(flaky.status, .fail)
        XCTAssertTrue(flaky.evidence.contains("run 2 fails by design"), flaky.evidence)
        XCTAssertEqual(report.subjects.first?.result(for: "STEADY-1")?.status, .pass)

        XCTAssertTrue(report.markdown().contains("## Flips\n\n- FLAKY-1 on toy-reference: pass 2, fail 1\n"), report.markdown())
        let decoded = try JSONDecoder().decode(ConformanceReport.self, from: Data(try report.json().utf8))
        XCTAssertEqual(decoded, report)
    }

    func testRunsThatAgreeHaveNoFlips() async throws {
        let runner = ConformanceRunner(checks: [countingCheck("STEADY-1", failing: [])])
        var progress: [String] = []
        let report = try await RepeatedConformanceRun(runner: runner, times: 2).run([MutantSubjects.reference]) { run, subject in
            progress.append("\(run) \(subject.name)")
        }
        XCTAssertEqual(progress, ["1 toy-reference", "2 toy-reference"])
        XCTAssertEqual(report.flips, [])
        XCTAssertTrue(report.meetsExpectation)
        XCTAssertTrue(report.markdown().contains("## Flips\n\nNo verdict differed between the 2 runs.\n"))
    }

    func testAReportWithoutRunsOrFlipsStillDecodes() async throws {
        let old = #"{"subjects":[{"name":"x","kind":"other","expectedToFail":[],"results":[{"rule":"INIT-1","status":"pass","evidence":""}]}]}"#
        let report = try JSONDecoder().decode(ConformanceReport.self, from: Data(old.utf8))
        XCTAssertEqual(report.runs, 1)
        XCTAssertEqual(report.flips, [])
        XCTAssertEqual(report.subjects.first?.results.first?.steps, [])
    }
}
