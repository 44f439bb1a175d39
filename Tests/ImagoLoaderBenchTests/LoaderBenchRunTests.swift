import Foundation
import ImagoBench
import ImagoLoaderBench
import Testing

/// `LoaderBench.run`, the adopter's one call: the rows land in the same files as every other
/// scenario's, and `imago bench compare` matches them row by row.
@Suite struct LoaderBenchRunTests {
    @Test func aRunWritesTheReportAndItsRowsCompareWithThemselves() async throws {
        let reports = FileManager.default.temporaryDirectory
            .appendingPathComponent("loader-bench-run-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: reports) }
        let run = try await LoaderBench.run([FakeLoader.subject], quick: true, plan: LoaderScenarioTests.plan,
                                            reports: reports)
        #expect(run.failures.isEmpty, "\(run.failures)")
        #expect(run.results.contains { $0.scenario == "loader" && $0.metric == ControlOverhead.metric && $0.statistics != nil })
        let markdown = try String(contentsOf: run.directory.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(markdown.contains("## loader"))
        let html = try String(contentsOf: run.directory.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("overhead-vs-control"))

        let comparison = RunComparison(base: run.results, new: run.results)
        #expect(comparison.rows.count == run.results.count)
        #expect(!comparison.rows.contains { $0.verdict == .worse || $0.verdict == .better || $0.verdict == .removed })
    }
}
