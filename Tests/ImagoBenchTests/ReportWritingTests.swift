import Foundation
import XCTest
@testable import ImagoBench

final class ReportWritingTests: XCTestCase {
    func testTimestampIsUTCAndFileSystemSafe() {
        XCTAssertEqual(ReportDirectory.timestamp(Date(timeIntervalSince1970: 0)), "1970-01-01T00-00-00Z")
    }

    func testRunDirectoryAndLatestSymlink() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-report-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try ReportDirectory.write(root: root, started: Date(timeIntervalSince1970: 0),
                                              files: [("results.csv", "a\n")])
        let second = try ReportDirectory.write(root: root, started: Date(timeIntervalSince1970: 60),
                                               files: [("results.csv", "b\n")])
        XCTAssertEqual(first.lastPathComponent, "1970-01-01T00-00-00Z")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: root.appendingPathComponent("latest").path),
                       second.lastPathComponent)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("latest/results.csv"), encoding: .utf8), "b\n")
    }

    func testScenarioTableShowsPercentilesAndSkips() {
        let table = MarkdownReport.table([
            BenchResult(scenario: "cache", parameters: "level=memory-hit", metric: "load-to-success", unit: "µs",
                        direction: .lowerIsBetter, samples: [0.5, 0.7, 2]),
            BenchResult(scenario: "cache", parameters: "level=disk-hit", metric: "load-to-pixels", unit: "ms",
                        direction: .lowerIsBetter, skipped: "a | b"),
        ])
        let lines = table.split(separator: "\n")
        XCTAssertEqual(lines.count, 4)
        XCTAssertEqual(lines[2], "| level=memory-hit | load-to-success | µs | lower | 0.500 | 0.700 | 0.500–2.00 | 2.00 | 2.00 | 2.00 | 3 |")
        XCTAssertTrue(lines[3].contains("skipped: a / b"))   // a pipe would break the table
        XCTAssertEqual(lines[3].split(separator: "|", omittingEmptySubsequences: false).count, 13, "as many cells as the header")
    }

    func testScenarioSelection() throws {
        XCTAssertEqual(try BenchScenarios.select([]).map(\.name), BenchScenarios.names)
        XCTAssertEqual(try BenchScenarios.select(["throughput", "decode"]).map(\.name), ["decode", "throughput"])
        XCTAssertThrowsError(try BenchScenarios.select(["nope"]))
    }
}
