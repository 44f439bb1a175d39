import XCTest
@testable import ImagoBench

final class SampleStatisticsTests: XCTestCase {
    func testNearestRankPercentilesOfOneToHundred() throws {
        let stats = try XCTUnwrap(SampleStatistics((1...100).map(Double.init).shuffled()))
        XCTAssertEqual(stats.count, 100)
        XCTAssertEqual(stats.min, 1)
        XCTAssertEqual(stats.p25, 25)
        XCTAssertEqual(stats.p50, 50)
        XCTAssertEqual(stats.p75, 75)
        XCTAssertEqual(stats.p90, 90)
        XCTAssertEqual(stats.p99, 99)
        XCTAssertEqual(stats.max, 100)
    }

    func testEveryPercentileIsAnObservedSample() throws {
        let samples = [3.5, 1.25, 9.0, 4.0, 2.0]
        let stats = try XCTUnwrap(SampleStatistics(samples))
        for value in [stats.min, stats.p50, stats.p90, stats.p99, stats.max] {
            XCTAssertTrue(samples.contains(value))
        }
        XCTAssertEqual(stats.p50, 3.5)
        XCTAssertEqual(stats.p99, 9.0)
    }

    func testOneSampleAndNone() throws {
        let one = try XCTUnwrap(SampleStatistics([7]))
        XCTAssertEqual([one.min, one.p50, one.p90, one.p99, one.max], [7, 7, 7, 7, 7])
        XCTAssertNil(SampleStatistics([]))
    }

    func testResultWithoutSamplesIsSkippedNotZero() {
        let row = BenchResult(scenario: "s", parameters: "", metric: "m", unit: "ms", direction: .lowerIsBetter, samples: [])
        XCTAssertNil(row.statistics)
        XCTAssertEqual(row.skipped, "no samples")
    }

    func testParametersRoundTrip() {
        let text = Parameters.make(["format": "jpeg-baseline", "size": "12MP"])
        XCTAssertEqual(text, "format=jpeg-baseline size=12MP")
        XCTAssertEqual(Parameters.value(of: "size", in: text), "12MP")
        XCTAssertNil(Parameters.value(of: "missing", in: text))
    }

    func testStatusFieldParsingHandlesTabsAndUnits() {
        let status = "Name:\timago\nVmHWM:\t   2168 kB\nVmRSS:\t    1708 kB\n"
        XCTAssertEqual(ProcessMemory.parseStatusField("VmHWM", in: status), 2168 * 1024)
        XCTAssertEqual(ProcessMemory.parseStatusField("VmRSS", in: status), 1708 * 1024)
        XCTAssertNil(ProcessMemory.parseStatusField("VmSwap", in: status))
    }
}
