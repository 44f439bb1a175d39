import Foundation
import XCTest
@testable import ImagoBench

/// The proxy tier scenario's pieces that need no processes: reading a worker's summary line,
/// and the report's one-line answer.
final class ProxyTierReportTests: XCTestCase {
    func testReadsTheTimeToPixelsFromTheLastSummaryLine() {
        let output = """
            {"source":"http://x/a.jpg","phase":"success","origin":"network","width":4,"height":4,"format":"jpeg"}
            {"summary":{"loads":1,"succeeded":1,"fetches":1,"totalMs":123.5,"stages":{"fetchMs":100}}}

            """
        XCTAssertEqual(WorkerProcesses.summaryTotalMs(output), 123.5)
        XCTAssertNil(WorkerProcesses.summaryTotalMs("{\"phase\":\"failure\"}\n"), "no summary, no time")
    }

    func testSummaryAnswersForTheLargestFleetAndSaysWhatWasSkipped() {
        func row(_ processes: Int, _ tier: String, _ metric: String, _ value: Double) -> BenchResult {
            BenchResult(scenario: "proxy-tier", parameters: Parameters.make(["processes": "\(processes)", "tier": tier]),
                        metric: metric, unit: "ms", direction: .lowerIsBetter, samples: [value])
        }
        var results = [row(4, "direct", "origin-requests", 4)]
        for (tier, requests, median, slowest) in [("direct", 8.0, 150.0, 200.0), ("proxy-cold", 1, 540, 560)] {
            results += [row(8, tier, "origin-requests", requests), row(8, tier, "time-to-pixels-median", median),
                        row(8, tier, "time-to-pixels-max", slowest)]
        }
        let answer = ReportSummary.rows(results).first { $0.question.hasPrefix("Shared cache tier") }
        XCTAssertEqual(answer?.question, "Shared cache tier: 8 processes, one image")
        XCTAssertEqual(answer?.answer, "direct 8 origin request(s), time to pixels 150 ms (slowest 200 ms); "
                       + "proxy-cold 1 origin request(s), time to pixels 540 ms (slowest 560 ms); proxy-warm skipped")
        XCTAssertNil(ReportSummary.rows([]).first { $0.question.hasPrefix("Shared cache tier") })
    }
}
