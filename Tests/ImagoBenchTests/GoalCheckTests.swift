import XCTest
@testable import ImagoBench
import Imago

final class GoalCheckTests: XCTestCase {
    private func decodeRow(_ format: String, _ decoder: String, _ state: String, _ rate: Double) -> BenchResult {
        BenchResult(scenario: "decode", parameters: "format=\(format) size=12MP decoder=\(decoder) state=\(state)",
                    metric: "throughput", unit: "MP/s", direction: .higherIsBetter, samples: [rate])
    }

    func testRatiosPassMissOrAreNotMeasured() throws {
        let rows = GoalCheck.rows([
            decodeRow("jpeg-baseline", "imago", "cold-process", 90), decodeRow("jpeg-baseline", "pillow", "cold-process", 30),
            decodeRow("png-rgb8", "imago", "cold-process", 11), decodeRow("png-rgb8", "pillow", "cold-process", 10),
        ])
        let jpeg = try XCTUnwrap(rows.first { $0.goal.contains("jpeg-baseline 12MP, cold") })
        XCTAssertEqual(jpeg.verdict, .pass)
        XCTAssertEqual(jpeg.measured, "3.00×")
        XCTAssertEqual(rows.first { $0.goal.contains("png-rgb8 12MP, cold") }?.verdict, .miss)
        XCTAssertEqual(rows.first { $0.goal.contains("webp-lossy 12MP, cold") }?.verdict, .notMeasured)
    }

    /// The sentence under the table never says every goal passed when none was measured.
    func testTheVerdictSentenceCountsWhatWasMeasured() {
        func row(_ verdict: GoalRow.Verdict) -> GoalRow { GoalRow(goal: "g", target: "≥ 1", measured: "2", verdict: verdict) }
        XCTAssertEqual(GoalCheck.verdictSentence([row(.notMeasured)]), "No goal was measured: the scenarios they need did not run.")
        XCTAssertEqual(GoalCheck.verdictSentence([row(.pass), row(.pass)]), "Every goal passed.")
        XCTAssertTrue(GoalCheck.verdictSentence([row(.pass), row(.notMeasured)]).hasPrefix("Every measured goal passed (1 of 2;"))
        XCTAssertEqual(GoalCheck.verdictSentence([row(.miss), row(.pass)]), "Missed: g (2, target ≥ 1).")
    }

    func testWrapperOverheadIsCRateOverImagoRate() throws {
        let rows = GoalCheck.rows([decodeRow("webp-lossy", "imago", "fresh", 100), decodeRow("webp-lossy", "c-direct", "warm", 102),
                                   decodeRow("webp-lossy", "imago", "fresh-pages", 90), decodeRow("webp-lossy", "c-direct", "fresh", 100)])
        let warm = try XCTUnwrap(rows.first { $0.goal.hasPrefix("wrapper overhead webp-lossy 12MP, warm") })
        XCTAssertEqual(warm.measured, "+2.0%")
        XCTAssertEqual(warm.verdict, .pass)
        let fresh = try XCTUnwrap(rows.first { $0.goal.hasPrefix("wrapper overhead webp-lossy 12MP, fresh") })
        XCTAssertEqual(fresh.measured, "+11.1%")
        XCTAssertEqual(fresh.verdict, .miss)
    }

    func testCoalescingGoalUsesTheWorstRound() throws {
        let rows = GoalCheck.rows([
            BenchResult(scenario: "coalescing", parameters: "concurrent-loads=100", metric: "requests", unit: "count",
                        direction: .lowerIsBetter, samples: [1, 1, 2]),
            BenchResult(scenario: "coalescing", parameters: "concurrent-loads=100", metric: "decodes", unit: "count",
                        direction: .lowerIsBetter, samples: [1, 1, 1]),
        ])
        XCTAssertEqual(rows.first { $0.goal.hasPrefix("100 identical") }?.verdict, .miss)
    }

    func testFetchMemoryGoalsPerTransportAndStrategy() throws {
        func row(_ metric: String, _ parameters: String, _ value: Double) -> BenchResult {
            BenchResult(scenario: "fetch", parameters: "format=jpeg-baseline size=40MP" + parameters, metric: metric,
                        unit: "MiB", direction: .lowerIsBetter, samples: [value])
        }
        let rows = GoalCheck.memoryRows([
            row("decoded-size", "", 152.6), row("body-size", "", 7.3),
            row("peak-rss-growth", " strategy=data transport=urlsession bandwidth=unthrottled", 170),   // ≤ 175.9
            row("peak-rss-growth", " strategy=file transport=urlsession bandwidth=unthrottled", 170),   // > 168.6
            row("peak-rss-growth", " strategy=file transport=urlsession bandwidth=20MB/s", 100),        // not the goal's
        ])
        XCTAssertEqual(rows.first { $0.goal == "data task 40MP peak RSS growth (p50, urlsession)" }?.verdict, .pass)
        let file = try XCTUnwrap(rows.first { $0.goal == "download-to-file 40MP peak RSS growth (p50, urlsession)" })
        XCTAssertEqual(file.verdict, .miss)
        XCTAssertEqual(file.target, "≤ 168.6 MiB")
        XCTAssertEqual(GoalCheck.memoryRows([]).map(\.verdict), [.notMeasured, .notMeasured])
    }

    func testThroughputGoalIsTheDefaultTransportAtConcurrency8AgainstAllCores() {
        func row(_ parameters: String, _ rate: Double) -> BenchResult {
            BenchResult(scenario: "throughput", parameters: "images=500 size=640x480 " + parameters, metric: "throughput",
                        unit: "images/s", direction: .higherIsBetter, samples: [rate])
        }
        let transport = BuiltInTransport.platformDefault.rawValue
        let single = row("path=single-core-decode-only cores=2", 750)
        XCTAssertEqual(GoalCheck.throughputRow([single, row("concurrency=8 transport=\(transport)", 1200)]).verdict, .pass)
        let miss = GoalCheck.throughputRow([single, row("concurrency=8 transport=\(transport)", 1100)])
        XCTAssertEqual(miss.verdict, .miss)
        XCTAssertEqual(miss.measured, "0.73× (1100 of 1500 images/s)")
        XCTAssertEqual(GoalCheck.throughputRow([single, row("concurrency=4 transport=\(transport)", 1500)]).verdict, .notMeasured)
    }

    func testStreamingGoalsAtTwentyMegabytesPerSecond() throws {
        func row(_ metric: String, _ parameters: String, _ value: Double, unit: String = "MiB") -> BenchResult {
            BenchResult(scenario: "stream", parameters: "format=png-rgb8 size=12MP" + parameters, metric: metric,
                        unit: unit, direction: .lowerIsBetter, samples: [value])
        }
        let rows = GoalCheck.streamingRows([
            row("decoded-size", "", 45.8),
            row("time-to-pixels/transfer", " bandwidth=20MB/s strategy=stream", 1.04, unit: "×"),
            row("time-to-pixels/transfer", " bandwidth=2MB/s strategy=stream", 1.5, unit: "×"),   // not the goal's
            row("time-to-pixels/transfer", " bandwidth=20MB/s strategy=data", 1.9, unit: "×"),     // nor this
            row("peak-rss-growth", " bandwidth=20MB/s strategy=stream", 60),                        // > 53.8
        ])
        let ratio = try XCTUnwrap(rows.first { $0.goal.contains("time to pixels / transfer") })
        XCTAssertEqual(ratio.verdict, .pass)
        XCTAssertEqual(ratio.measured, "1.04×")
        let memory = try XCTUnwrap(rows.first { $0.goal.contains("peak RSS growth") })
        XCTAssertEqual(memory.verdict, .miss)
        XCTAssertEqual(memory.target, "≤ 53.8 MiB (decoded + 8)")
        XCTAssertEqual(GoalCheck.streamingRows([]).map(\.verdict), [.notMeasured])
    }
}
