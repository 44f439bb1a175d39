import Foundation

extension GoalCheck {
    /// Issue 25's feed goals, stated at 50 ms RTT: HTTP/2 brings all the images in at most
    /// 0.4× the time HTTP/1.1 (six connections) takes, and the first screenful (high priority)
    /// arrives before the rest. One row per strategy the feed scenario measured (per protocol
    /// too for the second), "not measured" with the reason where a side was skipped.
    static let feedRoundTripTime = "50ms", feedHTTP2Ratio = 0.4

    static func feedRows(_ results: [BenchResult]) -> [GoalRow] {
        let feed = results.filter { $0.scenario == FeedRows.scenario && $0.parameter("rtt") == feedRoundTripTime }
        let screens = feed.filter { $0.metric == FeedRows.timeToAll }
        let strategies = ReportCharts.orderedKeys(screens) { $0.parameter("strategy") ?? "?" }
        let ratioTarget = String(format: "≤ %.1f×", feedHTTP2Ratio)
        guard !strategies.isEmpty else {
            return [GoalRow(goal: "feed at \(feedRoundTripTime): HTTP/2 time to all / HTTP/1.1's", target: ratioTarget,
                            measured: "—", verdict: .notMeasured),
                    GoalRow(goal: "feed at \(feedRoundTripTime): first screen before the rest", target: "0 of the rest first",
                            measured: "—", verdict: .notMeasured)]
        }
        func row(_ metric: String, _ strategy: String, _ version: FeedProtocol) -> BenchResult? {
            feed.first { $0.metric == metric && $0.parameter("strategy") == strategy && $0.parameter("protocol") == version.rawValue }
        }
        func unmeasured(_ rows: BenchResult?...) -> String {
            rows.compactMap { $0?.skipped }.first.map { "skipped: \($0)" } ?? "—"
        }
        var goals: [GoalRow] = []
        for strategy in strategies {
            let http1 = row(FeedRows.timeToAll, strategy, .http1), http2 = row(FeedRows.timeToAll, strategy, .http2)
            let images = http1?.parameter("images") ?? http2?.parameter("images") ?? "?"
            let goal = "feed of \(images) at \(feedRoundTripTime) (\(strategy)): HTTP/2 time to all / HTTP/1.1's (p50)"
            if let a = http2?.p50, let b = http1?.p50, b > 0 {
                goals.append(GoalRow(goal: goal, target: ratioTarget,
                                     measured: String(format: "%.2f× (%.0f of %.0f ms)", a / b, a, b),
                                     verdict: a / b <= feedHTTP2Ratio ? .pass : .miss))
            } else {
                goals.append(GoalRow(goal: goal, target: ratioTarget, measured: unmeasured(http2, http1), verdict: .notMeasured))
            }
            for version in FeedProtocol.allCases {
                let early = row(FeedRows.restBeforeFirstScreen, strategy, version)
                let screen = early?.parameter("first-screen") ?? "?"
                let goal = "feed at \(feedRoundTripTime) (\(version.rawValue), \(strategy)): first \(screen) before the rest (worst sample)"
                if let worst = early?.statistics?.max {
                    goals.append(GoalRow(goal: goal, target: "0 of the rest first", measured: "\(Int(worst)) of the rest first",
                                         verdict: worst == 0 ? .pass : .miss))
                } else {
                    goals.append(GoalRow(goal: goal, target: "0 of the rest first", measured: unmeasured(early), verdict: .notMeasured))
                }
            }
        }
        return goals
    }
}
