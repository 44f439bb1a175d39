import Testing
@testable import ImagoBench

/// The report's summary line for `imago bench --subject`: each loader's overhead over the raw
/// control, "n/a" for what the loader lacks.
@Suite struct LoaderSummaryTests {
    private func overhead(_ parameters: String, _ samples: [Double]) -> BenchResult {
        BenchResult(scenario: "loader", parameters: parameters, metric: ControlOverhead.metric, unit: "ratio",
                    direction: .lowerIsBetter, samples: samples)
    }

    @Test func eachSubjectGetsItsSourcesStrategiesAndHighestConcurrency() throws {
        let rows = [
            overhead("subject=fast strategy=data size=1600x1200 source=network", [1.2, 1.1, 1.3]),
            overhead("subject=fast strategy=file size=1600x1200 source=network", [1.5]),
            overhead("subject=fast strategy=data size=1600x1200 source=disk", []),   // no disk cache
            overhead("subject=fast strategy=data size=1600x1200 source=memory", [0.01]),
            overhead("subject=fast images=40 concurrency=1", [1.4]),
            overhead("subject=fast images=40 concurrency=16", [1.9]),
            overhead("subject=blog size=1600x1200 source=network", [2]),
        ]
        let answer = try #require(ReportSummary.rows(rows).first { $0.question.hasPrefix("Loaders against the raw control") }).answer
        #expect(answer == "fast: network data 1.20×, file 1.50×; disk n/a; memory data 0.01×; throughput at concurrency 16 1.90×"
            + " · blog: network default 2.00×; disk n/a; memory n/a; throughput n/a")
    }

    @Test func noLoaderRowsNoLine() {
        let throughputOnly = [BenchResult(scenario: "throughput", parameters: "concurrency=8 transport=ahc cache=memory",
                                          metric: ControlOverhead.metric, unit: "ratio", direction: .lowerIsBetter, samples: [1.1])]
        #expect(!ReportSummary.rows(throughputOnly).contains { $0.question.hasPrefix("Loaders against") })
    }
}
