import XCTest
@testable import ImagoBench

final class BaselineComparisonTests: XCTestCase {
    private let mib = 1 << 20
    private let machine = MachineInfo(cpuModel: "test", cores: 2, memory: "1 GiB", operatingSystem: "test",
                                      swiftVersion: "6", libpng: "1", libjpeg: "1", libwebp: "1")

    private func baseline(_ entries: [Baseline.Entry]) -> Baseline {
        Baseline(tolerance: .init(relative: 0.15, absoluteBytes: 4 << 20), machine: machine, entries: entries)
    }

    private func measured(_ bytes: Int, scenario: String = "decode", metric: String = "peak-rss-growth") -> MemoryGate.Measurement {
        MemoryGate.Measurement(scenario: scenario, metric: metric, bytes: bytes)
    }

    func testAllowanceIsTheLargerOfRelativeAndAbsolute() {
        let tolerance = Baseline.Tolerance(relative: 0.15, absoluteBytes: 4 << 20)
        XCTAssertEqual(tolerance.allowance(for: 100 * mib), 15 * mib)
        XCTAssertEqual(tolerance.allowance(for: 1 * mib), 4 * mib)
        XCTAssertEqual(tolerance.allowance(for: 0), 4 * mib)
    }

    func testWithinToleranceExitsZero() {
        let comparison = BaselineComparison(baseline: baseline([.init(scenario: "decode", metric: "peak-rss-growth", bytes: 100 * mib)]),
                                            measured: [measured(114 * mib)])
        XCTAssertEqual(comparison.rows.map(\.verdict), [.within])
        XCTAssertEqual(comparison.exitStatus, 0)
    }

    /// A deliberately introduced regression (a second full-size buffer kept alive) fails the gate.
    func testRegressionBeyondToleranceExitsTwo() {
        let comparison = BaselineComparison(baseline: baseline([.init(scenario: "decode", metric: "peak-rss-growth", bytes: 46 * mib)]),
                                            measured: [measured(92 * mib)])
        XCTAssertEqual(comparison.rows.map(\.verdict), [.regression])
        XCTAssertEqual(comparison.exitStatus, 2)
        XCTAssertTrue(comparison.conclusion.contains("regression"))
    }

    func testImprovementBeyondToleranceExitsFourAndAsksForABaseline() {
        let comparison = BaselineComparison(baseline: baseline([.init(scenario: "decode", metric: "peak-rss-growth", bytes: 100 * mib)]),
                                            measured: [measured(50 * mib)])
        XCTAssertEqual(comparison.rows.map(\.verdict), [.improvement])
        XCTAssertEqual(comparison.exitStatus, 4)
        XCTAssertTrue(comparison.conclusion.contains("make bench-baseline"))
    }

    func testRegressionWinsOverImprovement() {
        let comparison = BaselineComparison(
            baseline: baseline([.init(scenario: "a", metric: "held-after", bytes: 100 * mib),
                                .init(scenario: "b", metric: "held-after", bytes: 100 * mib)]),
            measured: [measured(10 * mib, scenario: "a", metric: "held-after"),
                       measured(200 * mib, scenario: "b", metric: "held-after")])
        XCTAssertEqual(comparison.rows.map(\.verdict), [.improvement, .regression])
        XCTAssertEqual(comparison.exitStatus, 2)
    }

    func testSmallFiguresUseTheAbsoluteFloor() {
        let entry = Baseline.Entry(scenario: "thumb", metric: "held-after", bytes: 1 * mib)
        XCTAssertEqual(BaselineComparison(baseline: baseline([entry]), measured: [measured(4 * mib, scenario: "thumb", metric: "held-after")]).exitStatus, 0)
        XCTAssertEqual(BaselineComparison(baseline: baseline([entry]), measured: [measured(6 * mib, scenario: "thumb", metric: "held-after")]).exitStatus, 2)
    }

    func testPerEntryToleranceOverridesTheFile() {
        let entry = Baseline.Entry(scenario: "fetch", metric: "peak-rss-growth", bytes: 100 * mib,
                                   tolerance: .init(relative: 0.5, absoluteBytes: 0))
        XCTAssertEqual(BaselineComparison(baseline: baseline([entry]), measured: [measured(140 * mib, scenario: "fetch")]).exitStatus, 0)
    }

    func testMissingMeasurementIsARegressionAndANewOneAsksForABaseline() {
        let missing = BaselineComparison(baseline: baseline([.init(scenario: "gone", metric: "held-after", bytes: mib)]), measured: [])
        XCTAssertEqual(missing.rows.map(\.verdict), [.missing])
        XCTAssertEqual(missing.exitStatus, 2)
        let new = BaselineComparison(baseline: baseline([]), measured: [measured(mib)])
        XCTAssertEqual(new.rows.map(\.verdict), [.new])
        XCTAssertEqual(new.exitStatus, 4)
    }

    func testOutputNamesScenarioBaselineMeasuredAndVerdict() {
        let comparison = BaselineComparison(baseline: baseline([.init(scenario: "decode-12mp", metric: "peak-rss-growth", bytes: 46 * mib)]),
                                            measured: [measured(47 * mib, scenario: "decode-12mp")])
        let line = comparison.lines[1]
        XCTAssertTrue(line.contains("decode-12mp"))
        XCTAssertTrue(line.contains("46.00 MiB"))
        XCTAssertTrue(line.contains("47.00 MiB"))
        XCTAssertTrue(line.hasSuffix("WITHIN"))
    }

    func testBaselineJSONRoundTrips() throws {
        let original = baseline([.init(scenario: "a", metric: "held-after", bytes: 123, tolerance: .init(relative: 0.2, absoluteBytes: 5))])
        let decoded = try JSONDecoder().decode(Baseline.self, from: Data(try original.json().utf8))
        XCTAssertEqual(decoded, original)
    }
}
