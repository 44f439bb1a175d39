import Foundation

extension ReportSummary {
    /// The feed's answer at the goals' round-trip time (else the first one run): per measured
    /// protocol and strategy, the first screen, all images, requests over connections; then
    /// the cold start against curl. Nil when the feed did not run.
    static func feed(_ results: [BenchResult]) -> (String, String)? {
        let rows = results.filter { $0.scenario == FeedRows.scenario }
        guard let firstRTT = rows.first?.parameter("rtt") else { return nil }
        let rtt = rows.contains { $0.parameter("rtt") == GoalCheck.feedRoundTripTime } ? GoalCheck.feedRoundTripTime : firstRTT
        let screens = rows.filter { $0.parameter("rtt") == rtt && $0.metric == FeedRows.timeToAll && $0.p50 != nil }
        var parts = screens.map { row -> String in
            let match = ["rtt": rtt, "strategy": row.parameter("strategy") ?? "", "protocol": row.parameter("protocol") ?? ""]
            let value = { (metric: String) in p50(results, FeedRows.scenario, metric, match) ?? .nan }
            return "\(match["protocol"]!) \(match["strategy"]!): first \(row.parameter("first-screen") ?? "?") in "
                + String(format: "%.0f ms, ", value(FeedRows.timeToFirstScreen)) + "all \(row.parameter("images") ?? "?") in "
                + String(format: "%.0f ms, %.0f requests over %.0f ", value(FeedRows.timeToAll), value(FeedRows.requests),
                         value(FeedRows.connections))
                + (value(FeedRows.connections) == 1 ? "connection" : "connections")
        }
        let skipped = Set(rows.filter { $0.parameter("rtt") == rtt && $0.metric == FeedRows.timeToAll }.compactMap(\.skipped))
        parts += skipped.sorted().map { "skipped: \($0)" }
        let cold = rows.filter { $0.metric == FeedRows.coldStart && $0.parameter("protocol") == FeedProtocol.http1.rawValue }
        if let imago = cold.first(where: { $0.parameter("client") == "imago" })?.p50,
           let curl = cold.first(where: { $0.parameter("client") == "curl" })?.p50 {
            parts.append(String(format: "cold start %.0f ms vs curl %.0f ms", imago, curl) + " (\(cold[0].parameter("rtt") ?? "?"))")
        }
        return ("A feed of thumbnails over TLS at \(rtt) RTT: how soon is the screen there?", parts.joined(separator: "; "))
    }
}
