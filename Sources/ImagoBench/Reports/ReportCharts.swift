/// The report's three charts, built from a run's results (a chart whose scenario did not run
/// is left out).
public enum ReportCharts {
    /// File name → SVG document.
    public static func charts(_ results: [BenchResult]) -> [(file: String, title: String, svg: String)] {
        var charts: [(String, String, String)] = []
        if let chart = decodeThroughput(results) { charts.append(("decode-throughput.svg", "Decode throughput", chart.svg)) }
        if let chart = strategyMemory(results) { charts.append(("strategy-memory.svg", "Fetch strategy peak memory", chart.svg)) }
        if let chart = cancellationLatency(results) { charts.append(("cancellation-latency.svg", "Cancellation latency", chart.svg)) }
        return charts
    }

    static func decodeThroughput(_ results: [BenchResult]) -> SVGBarChart? {
        let rows = results.filter { $0.scenario == "decode" }
        guard !rows.isEmpty else { return nil }
        let variants = [("imago", "fresh"), ("c-direct", "warm"), ("pillow", "warm-loop"), ("imago", "cold-process"), ("pillow", "cold-process")]
        let groups = orderedKeys(rows) { "\($0.parameter("format") ?? "") \($0.parameter("size") ?? "")" }.map { key in
            SVGBarChart.Group(label: key, bars: variants.map { decoder, state in
                (series: "\(decoder) \(state)", value: rows.first {
                    "\($0.parameter("format") ?? "") \($0.parameter("size") ?? "")" == key
                        && $0.parameter("decoder") == decoder && $0.parameter("state") == state
                }?.p50)
            })
        }
        return SVGBarChart(title: "Decode throughput, median", unit: "MP/s", groups: groups)
    }

    static func strategyMemory(_ results: [BenchResult]) -> SVGBarChart? {
        let rows = results.filter { $0.scenario == "fetch" && $0.metric == "peak-rss-growth" }
        guard !rows.isEmpty else { return nil }
        let cell = { (row: BenchResult) in "\(row.parameter("size") ?? "") \(row.parameter("bandwidth") ?? "")" }
        let series = orderedKeys(rows) { "\($0.parameter("transport") ?? "default") \($0.parameter("strategy") ?? "")" }
        let groups = orderedKeys(rows, cell).map { key in
            SVGBarChart.Group(label: key, bars: series.map { name in
                (series: name, value: rows.first {
                    cell($0) == key && "\($0.parameter("transport") ?? "default") \($0.parameter("strategy") ?? "")" == name
                }?.p50)
            })
        }
        return SVGBarChart(title: "Peak RSS growth per load (transport, strategy), median", unit: "MiB", groups: groups)
    }

    static func cancellationLatency(_ results: [BenchResult]) -> SVGBarChart? {
        let rows = results.filter { $0.scenario == "cancellation" && $0.metric == "cancel-to-task-end" }
        guard !rows.isEmpty else { return nil }
        let groups = rows.map { row in
            SVGBarChart.Group(label: [row.parameter("transport"), row.parameter("point"), row.parameter("strategy")]
                                .compactMap { $0 }.joined(separator: " "),
                              bars: [("p50", row.statistics?.p50), ("p99", row.statistics?.p99)])
        }
        return SVGBarChart(title: "cancel() to task end", unit: "ms", groups: groups)
    }

    /// Distinct keys in first-seen order.
    static func orderedKeys(_ rows: [BenchResult], _ key: (BenchResult) -> String) -> [String] {
        var keys: [String] = []
        for row in rows where !keys.contains(key(row)) { keys.append(key(row)) }
        return keys
    }
}
