import Foundation

/// The report's opening answers, "which path, at what cost", one line per scenario that ran,
/// each computed from the run's medians (a scenario that did not run says nothing).
public enum ReportSummary {
    public static func rows(_ results: [BenchResult]) -> [(question: String, answer: String)] {
        [decode(results), decodePeers(results), thumbnails(results), thumbnailPeers(results), fetch(results), cache(results), cancellation(results),
         coalescing(results), throughput(results), ControlGoals.summary(results), loader(results), pressure(results), proxyTier(results),
         feed(results)].compactMap { $0 }
    }

    public static func markdown(_ results: [BenchResult]) -> String {
        (["| question | answer (medians unless stated) |", "|---|---|"]
            + rows(results).map { "| \($0.question) | \($0.answer) |" }).joined(separator: "\n")
    }

    static func p50(_ results: [BenchResult], _ scenario: String, _ metric: String, _ match: [String: String]) -> Double? {
        results.first { row in
            row.scenario == scenario && row.metric == metric && match.allSatisfy { row.parameter($0.key) == $0.value }
        }?.p50
    }

    static func decode(_ results: [BenchResult]) -> (String, String)? {
        let rows = results.filter { $0.isDecodeThroughput }
        guard let size = rows.last?.parameter("size") ?? rows.first?.parameter("size") else { return nil }
        let at = rows.contains { $0.parameter("size") == GoalCheck.goalSize } ? GoalCheck.goalSize : size
        let parts = GoalCheck.coldRatios.map(\.0).compactMap { format -> String? in
            guard let imago = DecodeGoals.rate(rows, format: format, size: at, decoder: "imago", state: "fresh") else { return nil }
            let pillow = DecodeGoals.rate(rows, format: format, size: at, decoder: "pillow", state: "warm-loop")
            let c = DecodeGoals.rate(rows, format: format, size: at, decoder: "c-direct", state: "warm")
            return "\(format) \(String(format: "%.0f", imago)) MP/s"
                + (pillow.map { String(format: " (%.2f× Pillow warm", imago / $0) } ?? " (Pillow n/a")
                + (c.map { String(format: ", wrapper %+.1f%% vs C warm)", ($0 / imago - 1) * 100) } ?? ")")
        }
        return ("Which codec path, how fast? (\(at))", parts.joined(separator: "; "))
    }

    /// Imago (fresh, warm) against the fastest peer's warm loop per format, at the goal size.
    static func decodePeers(_ results: [BenchResult]) -> (String, String)? {
        let rows = results.filter { $0.isDecodeThroughput }
        guard let size = rows.first?.parameter("size") else { return nil }
        let at = rows.contains { $0.parameter("size") == GoalCheck.goalSize } ? GoalCheck.goalSize : size
        let parts = PeerComparison.decodeSummary(rows, size: at)
        return parts.isEmpty ? nil : ("Decode: Imago against the fastest peer, warm (\(at))", parts.joined(separator: "; "))
    }

    /// Imago's downsampled decode against the quickest peer thumbnail per input.
    static func thumbnailPeers(_ results: [BenchResult]) -> (String, String)? {
        let parts = PeerComparison.thumbnailSummary(results)
        return parts.isEmpty ? nil : ("Thumbnail: Imago against the fastest peer", parts.joined(separator: "; "))
    }

    static func thumbnails(_ results: [BenchResult]) -> (String, String)? {
        let rows = results.filter { $0.scenario == "thumbnails" && $0.metric == "time" }
        guard !rows.isEmpty else { return nil }
        var parts: [String] = []
        var faster = 0, lighter = 0
        for key in ReportCharts.orderedKeys(rows, { "\($0.parameter("format") ?? "") \($0.parameter("size") ?? "")" }) {
            let k = key.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            let match = { (method: String) in ["format": k[0], "size": k[1], "method": method] }
            guard let fast = p50(results, "thumbnails", "time", match("downsampled-decode")),
                  let slow = p50(results, "thumbnails", "time", match("full-decode+resize")) else { continue }
            let memFast = p50(results, "thumbnails", "peak-rss-growth", match("downsampled-decode"))
            let memSlow = p50(results, "thumbnails", "peak-rss-growth", match("full-decode+resize"))
            if fast < slow { faster += 1 }
            if let a = memFast, let b = memSlow, a < b { lighter += 1 }
            parts.append("\(key): \(String(format: "%.0f vs %.0f ms", fast, slow))"
                         + (memFast.flatMap { a in memSlow.map { String(format: ", %.0f vs %.0f MiB peak", a, $0) } } ?? ""))
        }
        let verdict = "downsampled decode is faster in \(faster) of \(parts.count) cases and lighter in \(lighter) of \(parts.count)"
        return ("Thumbnail: downsampled decode vs full decode + resize", verdict + " — " + parts.joined(separator: "; "))
    }

    static func fetch(_ results: [BenchResult]) -> (String, String)? {
        let rows = results.filter { $0.scenario == "fetch" && $0.metric == "time-to-pixels" }
        guard let largest = rows.last?.parameter("size") else { return nil }
        let transports = ReportCharts.orderedKeys(rows) { $0.parameter("transport") ?? "" }
        let parts = transports.flatMap { transport in
            ["unthrottled", "20MB/s"].compactMap { bandwidth -> String? in
                let match = { (s: String) in ["size": largest, "strategy": s, "bandwidth": bandwidth, "transport": transport] }
                guard let dataTime = p50(results, "fetch", "time-to-pixels", match("data")),
                      let fileTime = p50(results, "fetch", "time-to-pixels", match("file")) else { return nil }
                let dataPeak = p50(results, "fetch", "peak-rss-growth", match("data")) ?? .nan
                let filePeak = p50(results, "fetch", "peak-rss-growth", match("file")) ?? .nan
                return String(format: "%@ %@ %@: data %.0f ms / %.0f MiB peak, file %.0f ms / %.0f MiB peak",
                              transport, largest, bandwidth, dataTime, dataPeak, fileTime, filePeak)
            }
        }
        return ("Fetch: data task or download to file, per transport? (time to pixels / peak RSS growth)",
                parts.joined(separator: "; "))
    }

    static func cache(_ results: [BenchResult]) -> (String, String)? {
        let rows = results.filter { $0.scenario == "cache" }
        guard !rows.isEmpty else { return nil }
        var parts: [String] = []
        if let memory = rows.first(where: { $0.parameter("level") == "memory-hit" })?.p50 { parts.append(String(format: "memory hit %.1f µs", memory)) }
        if let disk = rows.first(where: { $0.parameter("level") == "disk-hit" })?.p50 { parts.append(String(format: "disk hit %.2f ms", disk)) }
        if let revalidated = rows.first(where: { $0.parameter("level") == "disk-revalidated" })?.p50 { parts.append(String(format: "revalidated (304) %.2f ms", revalidated)) }
        if let network = rows.first(where: { $0.parameter("level") == "network-miss" })?.p50 { parts.append(String(format: "network miss %.2f ms", network)) }
        for row in rows where row.metric == "hit-ratio" {
            if let ratio = row.p50 { parts.append("\(row.parameter("policy") ?? "") on \(row.parameter("trace") ?? "") \(String(format: "%.1f%%", ratio * 100)) hits") }
        }
        return ("Caches: what is a hit worth, which eviction policy?", parts.joined(separator: "; "))
    }

    static func cancellation(_ results: [BenchResult]) -> (String, String)? {
        let rows = results.filter { $0.scenario == "cancellation" }
        let ends = rows.filter { $0.metric == "cancel-to-task-end" }.compactMap(\.statistics)
        guard !ends.isEmpty else { return nil }
        let worstP99 = ends.map(\.p99).max() ?? .nan
        let worstP50 = ends.map(\.p50).max() ?? .nan
        let leftovers = rows.filter { $0.metric == "temp-files-left" }.compactMap(\.statistics?.max).max() ?? 0
        let sawClose = rows.filter { $0.metric == "server-saw-close" }.compactMap(\.p50).min()
        return ("Cancellation: how fast, what is left?",
                String(format: "worst p50 %.2f ms, worst p99 %.2f ms across points; temp files left %.0f", worstP50, worstP99, leftovers)
                    + (sawClose.map { String(format: "; server saw the close in ≥ %.0f%% of network cancels", $0 * 100) } ?? ""))
    }

    static func coalescing(_ results: [BenchResult]) -> (String, String)? {
        let crowd = ["concurrent-loads": "100"]
        guard let requests = results.first(where: { $0.scenario == "coalescing" && $0.metric == "requests" && $0.parameter("concurrent-loads") == "100" })?.statistics?.max,
              let decodes = results.first(where: { $0.scenario == "coalescing" && $0.metric == "decodes" && $0.parameter("concurrent-loads") == "100" })?.statistics?.max
        else { return nil }
        let ratio = p50(results, "coalescing", "p50-latency-vs-one-load", crowd)
        return ("Coalescing: 100 identical loads",
                String(format: "%.0f request(s), %.0f decode(s) at most per round", requests, decodes)
                    + (ratio.map { String(format: "; p50 latency %.2f× one load", $0) } ?? ""))
    }

    static func throughput(_ results: [BenchResult]) -> (String, String)? {
        let rows = results.filter { $0.scenario == "throughput" && $0.metric == "throughput" && $0.parameter("concurrency") != nil }
        let single = results.first { $0.scenario == "throughput" && $0.parameter("path") != nil }?.p50
        let parts = ReportCharts.orderedKeys(rows) { $0.parameter("transport") ?? "" }.compactMap { transport -> String? in
            let mine = rows.filter { ($0.parameter("transport") ?? "") == transport }
            guard let best = mine.max(by: { ($0.p50 ?? 0) < ($1.p50 ?? 0) }), let rate = best.p50 else { return nil }
            let efficiency = p50(results, "throughput", "efficiency-vs-decode-rate",
                                 ["concurrency": best.parameter("concurrency") ?? "", "transport": transport])
            return (transport.isEmpty ? "" : transport + ": ")
                + String(format: "best %.0f images/s at concurrency %@", rate, best.parameter("concurrency") ?? "?")
                + (efficiency.map { String(format: " (%.0f%% of the decode-only rate of the cores it can use)", $0 * 100) } ?? "")
        }
        guard !parts.isEmpty else { return nil }
        return ("Throughput: how many images per second, per transport?",
                parts.joined(separator: "; ") + (single.map { String(format: "; one core decodes %.0f/s alone", $0) } ?? ""))
    }

    static func proxyTier(_ results: [BenchResult]) -> (String, String)? {
        let fleet = results.filter { $0.scenario == "proxy-tier" }.compactMap { $0.parameter("processes") }
            .max { (Int($0) ?? 0) < (Int($1) ?? 0) }
        guard let fleet else { return nil }
        let parts = ["direct", "proxy-cold", "proxy-warm"].compactMap { tier -> String? in
            let match = ["processes": fleet, "tier": tier]
            guard let requests = p50(results, "proxy-tier", "origin-requests", match),
                  let median = p50(results, "proxy-tier", "time-to-pixels-median", match),
                  let slowest = p50(results, "proxy-tier", "time-to-pixels-max", match) else { return "\(tier) skipped" }
            return String(format: "%@ %.0f origin request(s), time to pixels %.0f ms (slowest %.0f ms)", tier, requests, median, slowest)
        }
        return ("Shared cache tier: \(fleet) processes, one image", parts.joined(separator: "; "))
    }

    static func pressure(_ results: [BenchResult]) -> (String, String)? {
        let runs = PressureTable.runKeys(results.filter { $0.scenario == "pressure" }).filter { $0.0 != "none" }
        guard !runs.isEmpty else { return nil }
        let parts = runs.map { limit, config -> String in
            let match = ["limit": limit, "config": config]
            guard let kills = p50(results, "pressure", "oom-kills", match) else { return "\(limit) \(config): skipped" }
            let loads = p50(results, "pressure", "loads-completed", match).map { String(Int($0)) } ?? "?"
            let relative = p50(results, "pressure", "throughput-vs-unlimited", match)
            return "\(limit) \(config): \(Int(kills)) OOM kill(s), \(loads) loads"
                + (relative.map { String(format: ", %.2f× unlimited throughput", $0) } ?? "")
        }
        return ("Memory pressure: OOM-killed in a small cgroup?", parts.joined(separator: "; "))
    }
}
