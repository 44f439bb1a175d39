import Foundation
import ImagoTestSupport
import Testing
@testable import ImagoBench

/// report.html from synthetic rows for every scenario: well-formed, one inline chart per scenario
/// with measured rows, nothing fetched or run, parameters escaped.
struct HTMLReportTests {
    static let machine = MachineInfo(cpuModel: "Test CPU <x>", cores: 2, memory: "4.0 GiB", operatingSystem: "Debian",
                                     swiftVersion: "6.3.1", libpng: "1.6", libjpeg: "3.0", libwebp: "1.5")
    /// The scenario whose rows are all skipped: it must get no chart and say why.
    static let unmeasured = "pressure"

    static func results() -> [BenchResult] {
        BenchScenarios.names.flatMap { name -> [BenchResult] in
            if name == unmeasured {
                return [BenchResult(scenario: name, parameters: "", metric: "scenario", unit: "", direction: .lowerIsBetter,
                                    skipped: "scenario failed: <no cgroup> & more")]
            }
            return [BenchResult(scenario: name, parameters: "format=jpeg-baseline size=12MP decoder=imago state=fresh label=<a&b>",
                                metric: "time", unit: "ms", direction: .lowerIsBetter, samples: [1, 2, 3]),
                    BenchResult(scenario: name, parameters: "size=1MP", metric: "time", unit: "ms",
                                direction: .lowerIsBetter, samples: [4, 5, 6])]
        }
    }

    static func page() throws -> String {
        let results = results()
        return HTMLReport.html(results: results, machine: machine, scenarios: try BenchScenarios.select([]), quick: true,
                               started: Date(timeIntervalSince1970: 0), duration: 12, loadAverages: ("0.10 0.20 0.30", "0.40 0.50 0.60"),
                               charts: ReportCharts.scenarioCharts(results))
    }

    @Test func pageIsWellFormed() throws {
        let page = try Self.page()
        #expect(page.hasPrefix("<!DOCTYPE html>\n"))
        let parsed = try #require(WellFormedXML.elements(String(page.dropFirst("<!DOCTYPE html>\n".count))))
        #expect(parsed.root == "html")
        #expect(parsed.all.contains("table") && parsed.all.contains("h2"))
    }

    @Test func oneInlineChartPerScenarioWithMeasuredRows() throws {
        let page = try Self.page()
        let measured = BenchScenarios.names.filter { $0 != Self.unmeasured }
        #expect(page.components(separatedBy: "<svg ").count - 1 == measured.count)
        #expect(!page.contains("<?xml"), "the SVGs sit inside the page without their declarations")
        #expect(page.contains("No chart: the scenario has no measured rows."))
        for name in BenchScenarios.names { #expect(page.contains("<h2 id=\"\(name)\">")) }
    }

    @Test func selfContainedAndEscaped() throws {
        let page = try Self.page()
        #expect(!page.lowercased().contains("<script"))
        for attribute in ["src=\"http", "href=\"http", "src='http", "href='http", "url(http"] {
            #expect(!page.lowercased().contains(attribute), "fetches \(attribute)")
        }
        #expect(page.contains("label=&lt;a&amp;b&gt;"))
        #expect(!page.contains("<a&b>"))
        #expect(page.contains("Test CPU &lt;x&gt;"))
        #expect(page.contains("scenario failed: &lt;no cgroup&gt; &amp; more"))
    }

    @Test func goalsAreStyledByVerdict() throws {
        let page = try Self.page()
        #expect(page.contains("<tr class=\"not-measured\">"), "the synthetic rows measure no goal")
    }

    @Test func markdownTablesAndInlineMarkup() {
        let html = HTMLPage.markdown("| a | b |\n|---|---|\n| **x** | `y<` |\n\n- one\n- two\nplain & text")
        #expect(html == "<table>\n<tr><th>a</th><th>b</th></tr>\n<tr><td><strong>x</strong></td><td><code>y&lt;</code></td></tr>\n"
                + "</table>\n<ul><li>one</li><li>two</li></ul>\n<p>plain &amp; text</p>\n")
    }

    /// Debian's Chromium renders the page headless: a screenshot is written and the page logs
    /// no console error. CI does not install Chromium (it would cost minutes), so there it is skipped.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
                   "needs /usr/bin/chromium (Debian's chromium package; not installed in CI)"))
    func rendersInHeadlessChromium() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-html-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("report.html")
        try Self.page().write(to: page, atomically: true, encoding: .utf8)
        let screenshot = directory.appendingPathComponent("report.png")
        // The shared runner: both pipes drained, killed after the timeout, so a hung browser fails the test.
        let run = try await ChildProcessRunner.run(URL(fileURLWithPath: "/usr/bin/chromium"), [
            "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
            "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
            "--screenshot=\(screenshot.path)", "--window-size=1300,3000", page.absoluteString,
        ], timeout: .seconds(60))
        let log = run.stderr
        #expect(run.status == 0 && !run.timedOut, "chromium exited \(run.status): \(log)")
        let consoleErrors = log.split(separator: "\n").filter { $0.contains("CONSOLE") || $0.contains("Uncaught") }
        #expect(consoleErrors.isEmpty, "console: \(consoleErrors.joined(separator: "\n"))")
        let size = try FileManager.default.attributesOfItem(atPath: screenshot.path)[.size] as? Int ?? 0
        #expect(size > 10_000, "a screenshot of the page, not an empty file")
    }
}
