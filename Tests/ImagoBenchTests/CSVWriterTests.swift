import XCTest
@testable import ImagoBench

final class CSVWriterTests: XCTestCase {
    func testHeaderAndOneMeasuredRow() {
        let row = BenchResult(scenario: "decode", parameters: "format=png size=12MP", metric: "throughput",
                              unit: "MP/s", direction: .higherIsBetter, samples: [10, 20, 30])
        let lines = CSVWriter.csv([row]).split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines[0], "scenario,parameters,metric,unit,direction,min,p25,p50,p75,p90,p99,max,samples,note")
        XCTAssertEqual(lines[1], "decode,format=png size=12MP,throughput,MP/s,higher is better,10,10,20,30,30,30,30,3,")
        XCTAssertEqual(lines.count, 3)   // trailing newline
        XCTAssertEqual(lines[2], "")
    }

    func testSkippedRowHasEmptyStatisticsAndTheReason() {
        let row = BenchResult(scenario: "decode", parameters: "p", metric: "m", unit: "ms",
                              direction: .lowerIsBetter, skipped: "Pillow is not importable")
        XCTAssertEqual(CSVWriter.csv([row]).split(separator: "\n")[1],
                       "decode,p,m,ms,lower is better,,,,,,,,0,skipped: Pillow is not importable")
    }

    func testFieldsWithCommasQuotesAndNewlinesAreQuoted() {
        XCTAssertEqual(CSVWriter.quote("plain"), "plain")
        XCTAssertEqual(CSVWriter.quote("a,b"), "\"a,b\"")
        XCTAssertEqual(CSVWriter.quote("say \"hi\""), "\"say \"\"hi\"\"\"")
        XCTAssertEqual(CSVWriter.quote("two\nlines"), "\"two\nlines\"")
    }

    func testNumbersArePlainDecimals() {
        XCTAssertEqual(CSVWriter.number(1), "1")
        XCTAssertEqual(CSVWriter.number(0.25), "0.25")
        XCTAssertEqual(CSVWriter.number(1234567.891234), "1234567.8912")
        XCTAssertEqual(CSVWriter.number(1e-9), "0")
        XCTAssertEqual(CSVWriter.number(.nan), "nan")
    }
}
