import XCTest
@testable import ImagoBench

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
}
