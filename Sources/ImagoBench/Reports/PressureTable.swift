import Foundation

/// The pressure scenario's runs as one table for report.md: a line per (limit, configuration)
/// with the figures issue 10 asks about, read back from the scenario's rows.
public enum PressureTable {
    public static func markdown(_ rows: [BenchResult]) -> String {
        let runs = runKeys(rows)
        guard !runs.isEmpty else { return "No pressure runs." }
        let loads = rows.first?.parameter("loads") ?? "?"
        var lines = [
            "| limit | configuration | OOM kills | loads completed | peak cgroup | peak / limit | pressure events | cache trims | wall time | images/s | vs unlimited |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for (limit, config) in runs {
            let run = rows.filter { $0.parameter("limit") == limit && $0.parameter("config") == config }
            func value(_ metric: String) -> Double? { run.first { $0.metric == metric }?.p50 }
            if let reason = run.first(where: { $0.metric == "oom-kills" })?.skipped {
                lines.append("| \(limit) | \(config) | skipped: \(reason.replacingOccurrences(of: "|", with: "/")) | | | | | | | | |")
                continue
            }
            let kills = value("oom-kills").map { Int($0) } ?? 0
            let completed: String = value("loads-completed").map { String(Int($0)) } ?? "—"
            let peak: String = value("peak-cgroup-usage").map { String(format: "%.0f MiB", $0) } ?? "—"
            let ratio: String = value("peak-vs-limit").map { String(format: "%.2f", $0) } ?? "—"
            let wall: String = value("wall-time").map { String(format: "%.1f s", $0) } ?? "unfinished"
            let rate: String = value("throughput").map { String(format: "%.1f", $0) } ?? "—"
            let relative: String = value("throughput-vs-unlimited").map { String(format: "%.2f×", $0) } ?? "—"
            let cells: [String] = [limit, config, kills > 0 ? "**\(kills)**" : "0", "\(completed) of \(loads)", peak, ratio,
                                   counter(run, "memory-pressure-events"), counter(run, "cache-trims"), wall, rate, relative]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append("Every load is a distinct URL (its own cache key, fetch and decode); the encoded files are one "
                     + "baseline JPEG per size (2, 12, 40 MP) served under many paths. Peak cgroup: the kernel's high-water "
                     + "mark of memory charged to the run's cgroup. Pressure events, cache trims and loads of a killed "
                     + "child: as of its last finished load. \"—\": not reported (no load finished, or this build's "
                     + "pipeline does not count them).")
        return lines.joined(separator: "\n")
    }

    /// (limit, config) pairs in the order the rows list them.
    static func runKeys(_ rows: [BenchResult]) -> [(String, String)] {
        var keys: [(String, String)] = []
        for row in rows {
            guard let limit = row.parameter("limit"), let config = row.parameter("config") else { continue }
            if !keys.contains(where: { $0 == (limit, config) }) { keys.append((limit, config)) }
        }
        return keys
    }

    private static func counter(_ run: [BenchResult], _ metric: String) -> String {
        run.first { $0.metric == metric }?.p50.map { String(Int($0)) } ?? "—"
    }
}
