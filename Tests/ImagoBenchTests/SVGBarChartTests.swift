import XCTest
@testable import ImagoBench

final class SVGBarChartTests: XCTestCase {
    private func parse(_ svg: String, file: StaticString = #filePath, line: UInt = #line) -> (root: String, all: [String])? {
        let parsed = WellFormedXML.elements(svg)
        if parsed == nil { XCTFail("not well-formed XML", file: file, line: line) }
        return parsed
    }

    func testChartIsWellFormedWithOneRectPerValueAndEscapedText() throws {
        let chart = SVGBarChart(title: "Speed <&> \"quotes\"", unit: "MP/s", groups: [
            .init(label: "jpeg & co", bars: [("imago", 120), ("pillow", 40)]),
            .init(label: "png", bars: [("imago", 60), ("pillow", nil)]),
        ])
        let document = try XCTUnwrap(parse(chart.svg))
        XCTAssertEqual(document.root, "svg")
        // background + 3 bars with values + 2 legend swatches
        XCTAssertEqual(document.all.filter { $0 == "rect" }.count, 1 + 3 + 2)
        XCTAssertTrue(chart.svg.contains("jpeg &amp; co"))
        XCTAssertTrue(chart.svg.contains("n/a"))
    }

    func testLargestBarSpansThePlotWidth() {
        let chart = SVGBarChart(title: "t", unit: "u", groups: [.init(label: "g", bars: [("a", 10), ("b", 5)])])
        XCTAssertTrue(chart.svg.contains("width=\"420\""))
        XCTAssertTrue(chart.svg.contains("width=\"210\""))
    }

    /// A long label widens the label column instead of running off the left edge; one longer
    /// than the widest column is cut with "…" and keeps its whole text as a tooltip.
    func testLongLabelsWidenTheColumnAndTheLongestAreCut() throws {
        let short = SVGBarChart(title: "t", unit: "u", groups: [.init(label: "g", bars: [("a", 1)])])
        XCTAssertEqual(short.labelWidth, 230)
        let label = "format=jpeg-baseline method=downsampled-decode path=x"
        let long = SVGBarChart(title: "t", unit: "u", groups: [.init(label: label, bars: [("a", 1)])])
        XCTAssertGreaterThanOrEqual(long.labelWidth, Double(label.count) * SVGBarChart.characterWidth)
        XCTAssertTrue(long.svg.contains(">\(label)</text>"))
        let huge = String(repeating: "parameter=value ", count: 10)
        let cut = SVGBarChart(title: "t", unit: "u", groups: [.init(label: huge, bars: [("a", 1)])])
        XCTAssertEqual(cut.labelWidth, SVGBarChart.maximumLabelWidth)
        XCTAssertTrue(cut.svg.contains("…</text>"))
        XCTAssertTrue(cut.svg.contains("<title>\(huge)</title>"))
        XCTAssertNotNil(parse(cut.svg))
    }

    func testTheCheckerRejectsMalformedXML() {
        XCTAssertNil(WellFormedXML.elements("<svg><text>a < b</text></svg>"))
        XCTAssertNil(WellFormedXML.elements("<svg><g></svg>"))
        XCTAssertNil(WellFormedXML.elements("<svg a=1/>"))
        XCTAssertNil(WellFormedXML.elements("<svg>&nbsp;</svg>"))
        XCTAssertNotNil(WellFormedXML.elements("<?xml version=\"1.0\"?>\n<svg a=\"x &amp; y\"><g/></svg>\n"))
    }

    func testEmptyAndZeroChartsAreStillWellFormed() {
        XCTAssertNotNil(parse(SVGBarChart(title: "empty", unit: "u", groups: []).svg))
        XCTAssertNotNil(parse(SVGBarChart(title: "zero", unit: "u", groups: [.init(label: "g", bars: [("a", 0)])]).svg))
    }

    func testReportChartsComeFromTheirScenariosRows() throws {
        let rows = [
            BenchResult(scenario: "decode", parameters: "format=png size=12MP decoder=imago state=fresh", metric: "throughput",
                        unit: "MP/s", direction: .higherIsBetter, samples: [50]),
            BenchResult(scenario: "cancellation", parameters: "point=before-head strategy=data", metric: "cancel-to-task-end",
                        unit: "ms", direction: .lowerIsBetter, samples: [0.2, 0.4]),
        ]
        let charts = ReportCharts.charts(rows)
        XCTAssertEqual(charts.map(\.file), ["decode-throughput.svg", "cancellation-latency.svg"])
        for chart in charts { XCTAssertNotNil(parse(chart.svg)) }
    }
}
