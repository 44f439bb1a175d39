import Imago

/// The issue's measurable goals, judged from a run's results: each becomes a row saying
/// pass, miss, or "not measured" (the scenario was not run or was skipped), never assumed.
public struct GoalRow: Sendable, Equatable {
    public enum Verdict: String, Sendable { case pass, miss, notMeasured = "not measured" }
    public let goal: String
    public let target: String
    public let measured: String
    public let verdict: Verdict
}

public enum GoalCheck {
    /// The size the decode goals are stated at.
    static let goalSize = "12MP"
    /// Cold-process Imago/Pillow ratios required per format.
    static let coldRatios: [(String, Double)] = [("jpeg-baseline", 3), ("webp-lossy", 3), ("jpeg-progressive", 1.8),
                                                 ("webp-lossless", 1.8), ("png-rgb8", 1.2)]
    /// Warm-loop Imago/Pillow ratios required per format.
    static let warmRatios: [(String, Double)] = [("jpeg-baseline", 1.5), ("jpeg-progressive", 1.5),
                                                 ("webp-lossy", 1.4), ("png-rgb8", 1.1)]

    /// The sentence under the goals table: what missed, or that every measured goal passed
    /// and how many were measured, or that none was (only some scenarios ran).
    public static func verdictSentence(_ rows: [GoalRow]) -> String {
        let missed = rows.filter { $0.verdict == .miss }
        let measured = rows.filter { $0.verdict != .notMeasured }.count
        if !missed.isEmpty {
            return "Missed: " + missed.map { "\($0.goal) (\($0.measured), target \($0.target))" }.joined(separator: "; ") + "."
        }
        if measured == 0 { return "No goal was measured: the scenarios they need did not run." }
        return measured == rows.count ? "Every goal passed."
            : "Every measured goal passed (\(measured) of \(rows.count); the rest need scenarios that did not run)."
    }

    public static func rows(_ results: [BenchResult]) -> [GoalRow] {
        decodeRows(results) + memoryRows(results) + pipelineRows(results) + pressureRows(results) + streamingRows(results)
            + feedRows(results)
    }

    static func decodeRows(_ results: [BenchResult]) -> [GoalRow] {
        let rate = { (format: String, decoder: String, state: String) in
            DecodeGoals.rate(results, format: format, size: goalSize, decoder: decoder, state: state)
        }
        func ratioRow(_ goal: String, _ minimum: Double, _ a: Double?, _ b: Double?) -> GoalRow {
            guard let a, let b else { return GoalRow(goal: goal, target: "≥ \(minimum)×", measured: "—", verdict: .notMeasured) }
            return GoalRow(goal: goal, target: "≥ \(minimum)×", measured: String(format: "%.2f×", a / b),
                           verdict: a / b >= minimum ? .pass : .miss)
        }
        var rows = coldRatios.map { format, minimum in
            ratioRow("decode \(format) \(goalSize), cold process: Imago vs Pillow", minimum,
                     rate(format, "imago", "cold-process"), rate(format, "pillow", "cold-process"))
        }
        rows += warmRatios.map { format, minimum in
            ratioRow("decode \(format) \(goalSize), warm loop: Imago vs Pillow", minimum,
                     rate(format, "imago", "fresh"), rate(format, "pillow", "warm-loop"))
        }
        let pairs = [("warm pages", "fresh", "warm"), ("fresh pages", "fresh-pages", "fresh")]
        for (format, _) in coldRatios {
            for (label, imagoState, cState) in pairs {
                let goal = "wrapper overhead \(format) \(goalSize), \(label): Imago vs C"
                guard let imago = rate(format, "imago", imagoState), let c = rate(format, "c-direct", cState) else {
                    rows.append(GoalRow(goal: goal, target: "≤ 3%", measured: "—", verdict: .notMeasured))
                    continue
                }
                let overhead = c / imago - 1   // extra time per decode relative to the bare call
                rows.append(GoalRow(goal: goal, target: "≤ 3%", measured: String(format: "%+.1f%%", overhead * 100),
                                    verdict: overhead <= 0.03 ? .pass : .miss))
            }
        }
        return rows
    }

    /// Peak RSS growth of one 40 MP load, unthrottled, per transport: a data task may hold the
    /// decoded image, the body and 16 MiB; a download to file only the image and 16 MiB.
    static func memoryRows(_ results: [BenchResult]) -> [GoalRow] {
        let fetch = results.filter { $0.scenario == "fetch" && $0.parameter("size") == "40MP" }
        let decoded = fetch.first { $0.metric == "decoded-size" }?.p50
        let body = fetch.first { $0.metric == "body-size" }?.p50
        let peaks = fetch.filter { $0.metric == "peak-rss-growth" && $0.parameter("bandwidth") == "unthrottled" }
        let transports = ReportCharts.orderedKeys(peaks) { $0.parameter("transport") ?? "default" }
        var rows: [GoalRow] = []
        for (strategy, label) in [("data", "data task"), ("file", "download-to-file")] {
            let allowance = strategy == "data" ? body.map { $0 + 16 } : 16
            let target = strategy == "data" ? "≤ decoded + body + 16 MiB" : "≤ decoded + 16 MiB"
            for transport in transports.isEmpty ? ["default"] : transports {
                let goal = "\(label) 40MP peak RSS growth (p50, \(transport))"
                guard let decoded, let allowance, let peak = peaks.first(where: {
                    $0.parameter("strategy") == strategy && ($0.parameter("transport") ?? "default") == transport
                })?.p50 else {
                    rows.append(GoalRow(goal: goal, target: target, measured: "—", verdict: .notMeasured))
                    continue
                }
                rows.append(GoalRow(goal: goal, target: String(format: "≤ %.1f MiB", decoded + allowance),
                                    measured: String(format: "%.1f MiB", peak),
                                    verdict: peak <= decoded + allowance ? .pass : .miss))
            }
        }
        return rows
    }

    static func pipelineRows(_ results: [BenchResult]) -> [GoalRow] {
        var rows: [GoalRow] = []
        let hit = results.first { $0.scenario == "cache" && $0.parameter("level") == "memory-hit" }?.p50
        rows.append(hit.map { GoalRow(goal: "memory hit p50 (load → success published)", target: "≤ 10 µs",
                                      measured: String(format: "%.2f µs", $0), verdict: $0 <= 10 ? .pass : .miss) }
                    ?? GoalRow(goal: "memory hit p50", target: "≤ 10 µs", measured: "—", verdict: .notMeasured))
        let cancels = results.filter { $0.scenario == "cancellation" && $0.metric == "cancel-to-task-end" }
        for row in cancels {
            let label = "cancel-to-end p99 at \(row.parameter("point") ?? "?")"
                + ([row.parameter("strategy"), row.parameter("transport")].compactMap { $0 }.map { " (\($0))" }.joined())
            if let p99 = row.statistics?.p99 {
                rows.append(GoalRow(goal: label, target: "≤ 5 ms", measured: String(format: "%.2f ms", p99),
                                    verdict: p99 <= 5 ? .pass : .miss))
            } else {
                rows.append(GoalRow(goal: label, target: "≤ 5 ms", measured: "—", verdict: .notMeasured))
            }
        }
        if cancels.isEmpty { rows.append(GoalRow(goal: "cancel-to-end p99", target: "≤ 5 ms", measured: "—", verdict: .notMeasured)) }
        rows.append(throughputRow(results))
        rows += ControlGoals.rows(results)
        let crowd = results.filter { $0.scenario == "coalescing" && $0.parameter("concurrent-loads") == "100" }
        let requests = crowd.first { $0.metric == "requests" }?.statistics?.max
        let decodes = crowd.first { $0.metric == "decodes" }?.statistics?.max
        if let requests, let decodes {
            rows.append(GoalRow(goal: "100 identical loads (worst round)", target: "1 request, 1 decode",
                                measured: "\(Int(requests)) request(s), \(Int(decodes)) decode(s)",
                                verdict: requests == 1 && decodes == 1 ? .pass : .miss))
        } else {
            rows.append(GoalRow(goal: "100 identical loads", target: "1 request, 1 decode", measured: "—", verdict: .notMeasured))
        }
        return rows
    }
}

extension GoalCheck {
    /// The cgroup limit and configuration issue 10's goals are stated at.
    static let pressureLimit = "256MiB", pressureConfig = PressureMode.defaults.rawValue

    /// Issue 10: the default configuration inside a 256 MiB cgroup is never OOM-killed,
    /// finishes every load and stays within the limit.
    static func pressureRows(_ results: [BenchResult]) -> [GoalRow] {
        let run = results.filter {
            $0.scenario == "pressure" && $0.parameter("limit") == pressureLimit && $0.parameter("config") == pressureConfig
        }
        let label = "pressure, \(pressureConfig) in a \(pressureLimit) cgroup"
        func value(_ metric: String) -> Double? { run.first { $0.metric == metric }?.p50 }
        guard let kills = value("oom-kills"), let completed = value("loads-completed") else {
            let measured = run.first?.skipped.map { "skipped: \($0)" } ?? "—"
            return [GoalRow(goal: "\(label): OOM kills", target: "0", measured: measured, verdict: .notMeasured)]
        }
        let total = run.first?.parameter("loads").flatMap(Int.init) ?? 0
        var rows = [
            GoalRow(goal: "\(label): OOM kills", target: "0", measured: "\(Int(kills))", verdict: kills == 0 ? .pass : .miss),
            GoalRow(goal: "\(label): loads completed", target: "all \(total)", measured: "\(Int(completed))",
                    verdict: Int(completed) == total ? .pass : .miss),
        ]
        if let ratio = value("peak-vs-limit") {
            rows.append(GoalRow(goal: "\(label): peak cgroup usage / limit", target: "≤ 1", measured: String(format: "%.2f", ratio),
                                verdict: ratio <= 1 ? .pass : .miss))
        } else {
            rows.append(GoalRow(goal: "\(label): peak cgroup usage / limit", target: "≤ 1", measured: "—", verdict: .notMeasured))
        }
        return rows
    }
}

/// Looks up decode throughput at the median.
enum DecodeGoals {
    static func rate(_ results: [BenchResult], format: String, size: String, decoder: String, state: String) -> Double? {
        results.first {
            $0.isDecodeThroughput && $0.parameter("format") == format && $0.parameter("size") == size
                && $0.parameter("decoder") == decoder && $0.parameter("state") == state
        }?.p50
    }
}

extension GoalCheck {
    /// Loads in flight at which the throughput goal is stated, and the share of the cores'
    /// decode-only rate the default transport must reach there.
    static let throughputConcurrency = 8, throughputShare = 0.8

    /// With the default transport, the pipeline at concurrency 8 delivers at least 0.8× what the
    /// cores decode alone (one core's decode-only rate × min(8, the number of cores)).
    static func throughputRow(_ results: [BenchResult]) -> GoalRow {
        let transport = BuiltInTransport.platformDefault.rawValue
        let goal = "throughput at concurrency \(throughputConcurrency) (\(transport)) vs the cores' decode-only rate"
        let target = String(format: "≥ %.1f×", throughputShare)
        let rows = results.filter { $0.scenario == "throughput" && $0.metric == "throughput" }
        guard let single = rows.first(where: { $0.parameter("path") == "single-core-decode-only" })?.p50,
              let cores = rows.first(where: { $0.parameter("path") == "single-core-decode-only" })?.parameter("cores").flatMap(Double.init),
              let rate = rows.first(where: {
                  $0.parameter("concurrency") == "\(throughputConcurrency)" && $0.parameter("transport") == transport
              })?.p50
        else { return GoalRow(goal: goal, target: target, measured: "—", verdict: .notMeasured) }
        // The cores eight loads can keep busy: all of them on this machine, eight on a bigger one.
        let ideal = single * min(Double(throughputConcurrency), cores)
        let share = rate / ideal
        return GoalRow(goal: goal, target: target,
                       measured: String(format: "%.2f× (%.0f of %.0f images/s)", share, rate, ideal),
                       verdict: share >= throughputShare ? .pass : .miss)
    }
}
