import Foundation

/// Turns pressure runs into report rows: one set of metrics per (limit, configuration), each
/// a single sample; a run without a cgroup gives skipped rows that say why.
public enum PressureRows {
    public struct Run: Sendable, Equatable {
        /// nil for the run without a limit.
        public let limitBytes: Int?
        public let mode: PressureMode
        public let outcome: PressureRun.Outcome

        public init(limitBytes: Int?, mode: PressureMode, outcome: PressureRun.Outcome) {
            self.limitBytes = limitBytes
            self.mode = mode
            self.outcome = outcome
        }
    }

    static let mebibyte = 1024.0 * 1024.0

    /// Counter fields the pipeline may have (added by issue 10) and their metric names; a row
    /// appears only when the workload's counters contain the field.
    static let pressureCounters = [("memoryPressureEvents", "memory-pressure-events"), ("cacheTrims", "cache-trims"),
                                   ("decodeBytesAdmitted", "decode-bytes-admitted"),
                                   ("decodesWaitedForMemory", "decodes-waited-for-memory"),
                                   ("decodesRefusedForMemory", "decodes-refused-for-memory")]

    /// The rows a run without a measurement still gets, so the report says why.
    static let skippedMetrics: [(String, String, MetricDirection)] = [
        ("oom-kills", "count", .lowerIsBetter), ("loads-completed", "count", .higherIsBetter),
        ("peak-cgroup-usage", "MiB", .lowerIsBetter), ("throughput", "images/s", .higherIsBetter),
    ]

    /// "256MiB", or "none" without a limit: the `limit` parameter of a row.
    public static func limitLabel(_ limitBytes: Int?) -> String {
        limitBytes.map { "\($0 >> 20)MiB" } ?? "none"
    }

    public static func parameters(limitBytes: Int?, mode: PressureMode, loads: Int, concurrency: Int) -> String {
        Parameters.make(["limit": limitLabel(limitBytes), "config": mode.rawValue, "loads": "\(loads)",
                         "concurrency": "\(concurrency)"])
    }

    public static func rows(scenario: String, loads: Int, concurrency: Int, runs: [Run]) -> [BenchResult] {
        // Every run is the same executable: a counter one run reported, this build counts.
        let counted = Set(runs.flatMap { $0.outcome.measurement?.counters?.keys.map { $0 } ?? [] })
        return runs.flatMap { run in
            let reference = runs.first { $0.limitBytes == nil && $0.mode == run.mode }
            return rows(scenario: scenario, parameters: parameters(limitBytes: run.limitBytes, mode: run.mode, loads: loads,
                                                                  concurrency: concurrency),
                        run: run, unlimited: reference.flatMap(\.outcome.measurement?.throughput), counted: counted)
        }
    }

    /// - Parameter counted: the counter fields this build's pipeline has.
    static func rows(scenario: String, parameters: String, run: Run, unlimited: Double?, counted: Set<String>) -> [BenchResult] {
        func row(_ metric: String, _ unit: String, _ direction: MetricDirection, _ value: Double?, else reason: String) -> BenchResult {
            value.map { BenchResult(scenario: scenario, parameters: parameters, metric: metric, unit: unit,
                                    direction: direction, samples: [$0]) }
                ?? BenchResult(scenario: scenario, parameters: parameters, metric: metric, unit: unit,
                               direction: direction, skipped: reason)
        }
        guard case .measured(let m) = run.outcome else {
            return skippedMetrics.map { row($0.0, $0.1, $0.2, nil, else: run.outcome.skipReason ?? "") }
        }
        let unfinished = "the child did not finish (\(m.endDescription)) after \(String(format: "%.1f", m.elapsedSeconds)) s, "
            + "\(m.loadsCompleted) of \(m.loadsTotal) loads"
        var rows = [
            row("oom-kills", "count", .lowerIsBetter, Double(m.oomKills), else: ""),
            row("loads-completed", "count", .higherIsBetter, Double(m.loadsCompleted), else: ""),
            row("load-failures", "count", .lowerIsBetter, Double(m.loadsFailed), else: ""),
            row("peak-cgroup-usage", "MiB", .lowerIsBetter, m.peakCgroupBytes.map { Double($0) / mebibyte },
                else: "no memory cgroup for this run"),
        ]
        if let limit = m.limitBytes {
            rows.append(row("peak-vs-limit", "ratio", .lowerIsBetter, m.peakCgroupBytes.map { Double($0) / Double(limit) },
                            else: "the kernel did not report a peak"))
        }
        rows.append(row("peak-rss", "MiB", .lowerIsBetter, m.result?.peakResidentBytes.map { Double($0) / mebibyte },
                        else: unfinished))
        for (field, metric) in pressureCounters where counted.contains(field) {
            let bytes = field == "decodeBytesAdmitted"   // a byte total, shown in MiB like the other sizes
            let value = m.counters?[field].map { bytes ? Double($0) / mebibyte : Double($0) }
            rows.append(row(metric, bytes ? "MiB" : "count", .lowerIsBetter, value, else: unfinished))
        }
        rows += [
            row("decodes", "count", .lowerIsBetter, m.counters?["decodes"].map(Double.init), else: unfinished),
            row("wall-time", "s", .lowerIsBetter, m.finished ? m.wallSeconds : nil, else: unfinished),
            row("throughput", "images/s", .higherIsBetter, m.throughput, else: unfinished),
        ]
        if m.limitBytes != nil {
            let relative = m.throughput.flatMap { own in unlimited.map { own / $0 } }
            rows.append(row("throughput-vs-unlimited", "ratio", .higherIsBetter, relative,
                            else: m.throughput == nil ? unfinished : "the run without a limit did not finish"))
        }
        return rows
    }

    /// One line for the progress log: how the run ended and its headline figures.
    public static func summary(limit: Int?, mode: PressureMode, _ outcome: PressureRun.Outcome) -> String {
        let label = "limit \(limitLabel(limit)), \(mode.rawValue): "
        guard case .measured(let m) = outcome else { return label + "skipped: \(outcome.skipReason ?? "")" }
        var text = label + "\(m.endDescription), \(m.oomKills) OOM kill(s), \(m.loadsCompleted)/\(m.loadsTotal) loads"
        if let peak = m.peakCgroupBytes { text += String(format: ", peak %.0f MiB", Double(peak) / mebibyte) }
        text += String(format: ", %.1f s", m.wallSeconds)
        if !m.failures.isEmpty {
            text += "; failures: " + m.failures.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        }
        if !m.finished, !m.errorTail.isEmpty { text += "; stderr: " + m.errorTail.replacingOccurrences(of: "\n", with: " | ") }
        return text
    }
}

extension PressureRun.Outcome {
    /// The measurement, or nil when skipped.
    public var measurement: PressureRun.Measurement? {
        if case .measured(let measurement) = self { return measurement }
        return nil
    }

    /// The reason, or nil when measured.
    public var skipReason: String? {
        if case .skipped(let reason) = self { return reason }
        return nil
    }
}
