/// The report's charts, built from a run's results: one per scenario with measured rows. Decode,
/// fetch and cancellation have charts drawn for their question; every other scenario gets the
/// median of its first metric (the one it reports as its answer) per parameter set. A scenario
/// with no measured rows gets no chart.
public enum ReportCharts {
    /// A chart and the scenario it shows.
    public typealias Chart = (scenario: String, file: String, title: String, svg: String)

    /// File name → SVG document, in scenario order of first appearance in `results`.
    public static func charts(_ results: [BenchResult]) -> [(file: String, title: String, svg: String)] {
        scenarioCharts(results).map { ($0.file, $0.title, $0.svg) }
    }

    /// One chart per scenario with measured rows.
    public static func scenarioCharts(_ results: [BenchResult]) -> [Chart] {
        orderedKeys(results, \.scenario).compactMap { scenario -> Chart? in
            let dedicated: Chart? = switch scenario {
            case "decode": decodeThroughput(results).map { (scenario, "decode-throughput.svg", "Decode throughput", $0.svg) }
            case "fetch": strategyMemory(results).map { (scenario, "strategy-memory.svg", "Fetch strategy peak memory", $0.svg) }
            case "cancellation":
                cancellationLatency(results).map { (scenario, "cancellation-latency.svg", "Cancellation latency", $0.svg) }
            default: nil
            }
            return dedicated ?? primaryMetric(results, scenario: scenario).map { metric, chart in
                (scenario, "\(scenario)-\(metric).svg".replacingOccurrences(of: "/", with: "-"), chart.title, chart.svg)
            }
        }
    }

    /// The median of the scenario's first measured metric, one bar per parameter set.
    static func primaryMetric(_ results: [BenchResult], scenario: String) -> (metric: String, chart: SVGBarChart)? {
        let measured = results.filter { $0.scenario == scenario && $0.statistics != nil }
        guard let first = measured.first else { return nil }
        let rows = measured.filter { $0.metric == first.metric && $0.unit == first.unit }
        // Labels keep only what differs between the bars: the chart's 230-pixel label column cuts the rest.
        let tokens = rows.map { $0.parameters.split(separator: " ").map(String.init) }
        let shared = Set(tokens.first ?? []).filter { token in tokens.allSatisfy { $0.contains(token) } }
        let groups = zip(rows, tokens).map { row, words in
            let label = words.filter { rows.count == 1 || !shared.contains($0) }.joined(separator: " ")
            return SVGBarChart.Group(label: label.isEmpty ? "(all)" : label, bars: [("p50", row.p50)])
        }
        let better = first.direction == .lowerIsBetter ? "lower is better" : "higher is better"
        return (first.metric, SVGBarChart(title: "\(scenario): \(first.metric), median, \(better)", unit: first.unit, groups: groups))
    }

    static func decodeThroughput(_ results: [BenchResult]) -> SVGBarChart? {
        let rows = results.filter { $0.isDecodeThroughput }
        guard !rows.isEmpty else { return nil }
        let variants = [("imago", "fresh"), ("c-direct", "warm"), ("pillow", "warm-loop"), ("imago", "cold-process"), ("pillow", "cold-process")]
        // A variant the plan does not run at a size (the peers at 40 MP, cold processes off the
        // goals' size) has no bar; one that ran and was skipped says "n/a".
        let groups = orderedKeys(rows) { "\($0.parameter("format") ?? "") \($0.parameter("size") ?? "")" }.map { key in
            SVGBarChart.Group(label: key, bars: variants.compactMap { decoder, state in
                rows.first {
                    "\($0.parameter("format") ?? "") \($0.parameter("size") ?? "")" == key
                        && $0.parameter("decoder") == decoder && $0.parameter("state") == state
                }.map { (series: "\(decoder) \(state)", value: $0.p50) }
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
