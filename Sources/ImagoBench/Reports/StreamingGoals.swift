import Imago

extension GoalCheck {
    /// Issue 14's streaming goals: at 20 MB/s, streaming time to pixels at most 1.1× the raw
    /// transfer time, and (without a disk cache) peak RSS growth at most the decoded bytes plus
    /// 8 MiB; one row per format and size the stream scenario measured.
    static let streamingBandwidth = "20MB/s", streamingRatio = 1.1, streamingSlackMiB = 8.0

    static func streamingRows(_ results: [BenchResult]) -> [GoalRow] {
        let stream = results.filter { $0.scenario == "stream" }
        let cases = ReportCharts.orderedKeys(stream.filter { $0.metric == "decoded-size" }) {
            "\($0.parameter("format") ?? "?") \($0.parameter("size") ?? "?")"
        }
        guard !cases.isEmpty else {
            return [GoalRow(goal: "streaming time to pixels / transfer at \(streamingBandwidth)", target: "≤ \(streamingRatio)×",
                            measured: "—", verdict: .notMeasured)]
        }
        var rows: [GoalRow] = []
        for label in cases {
            func row(_ metric: String) -> BenchResult? {
                stream.first {
                    $0.metric == metric && "\($0.parameter("format") ?? "?") \($0.parameter("size") ?? "?")" == label
                        && ($0.parameter("strategy") == nil || $0.parameter("strategy") == FetchStrategy.stream.rawValue)
                        && ($0.parameter("bandwidth") == nil || $0.parameter("bandwidth") == streamingBandwidth)
                }
            }
            let ratioGoal = "stream \(label) at \(streamingBandwidth): time to pixels / transfer (p50)"
            if let ratio = row("time-to-pixels/transfer")?.p50 {
                rows.append(GoalRow(goal: ratioGoal, target: "≤ \(streamingRatio)×", measured: String(format: "%.2f×", ratio),
                                    verdict: ratio <= streamingRatio ? .pass : .miss))
            } else {
                rows.append(GoalRow(goal: ratioGoal, target: "≤ \(streamingRatio)×", measured: "—", verdict: .notMeasured))
            }
            let memoryGoal = "stream \(label) at \(streamingBandwidth): peak RSS growth (p50), no disk cache"
            if let decoded = row("decoded-size")?.p50, let peak = row("peak-rss-growth")?.p50 {
                let limit = decoded + streamingSlackMiB
                rows.append(GoalRow(goal: memoryGoal, target: String(format: "≤ %.1f MiB (decoded + 8)", limit),
                                    measured: String(format: "%.1f MiB", peak), verdict: peak <= limit ? .pass : .miss))
            } else {
                rows.append(GoalRow(goal: memoryGoal, target: "≤ decoded + 8 MiB", measured: "—", verdict: .notMeasured))
            }
        }
        return rows
    }
}

