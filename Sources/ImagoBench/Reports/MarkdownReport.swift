import Foundation

/// `report.md`: the machine, the answers, the goal check, then one table per scenario, with
/// the SVG charts linked where their scenario ran.
public enum MarkdownReport {
    /// - Parameter loadAverages: /proc/loadavg at the start and the end of the run.
    /// - Parameter activity: what ran beside the run, from its CPU time (nil: unknown).
    /// - Parameter peers: the decode peers as this run found them (default none: no peers line).
    public static func markdown(results: [BenchResult], machine: MachineInfo, scenarios: [any BenchScenario],
                                quick: Bool, started: Date, duration: Double, loadAverages: (start: String, end: String),
                                activity: RunNoise.OtherActivity? = nil,
                                charts: [(file: String, title: String, svg: String)], peers: [PeerStatus] = []) -> String {
        var out: [String] = []
        out.append("# Imago benchmark report")
        out.append("")
        out.append("Run \(ISO8601DateFormatter().string(from: started)), \(quick ? "quick" : "full") mode, "
                   + "\(ProgressReporter.format(seconds: duration)); scenarios: \(scenarios.map(\.name).joined(separator: ", ")). "
                   + "Raw rows: [results.csv](results.csv); every sample: [samples.csv](samples.csv).")
        out.append("")
        out.append(machine.markdown)
        out.append(RunNoise.machineRows(loadAverages: loadAverages, activity: activity))
        if !peers.isEmpty { out.append("| peers | " + peerVersions(peers) + " |") }
        out.append("")
        if let noise = RunNoise.reason(start: loadAverages.start, end: loadAverages.end, cores: machine.cores,
                                         activity: activity) {
            out.append("**A noisy run:** \(noise). Its numbers vary more than a quiet run's; compare them with care.")
            out.append("")
        }
        out.append("## Summary")
        out.append("")
        out.append(ReportSummary.markdown(results))
        out.append("")
        out.append("## Goals")
        out.append("")
        let goals = GoalCheck.rows(results)
        out.append("| goal | target | measured | verdict |")
        out.append("|---|---|---|---|")
        out += goals.map { "| \($0.goal) | \($0.target) | \($0.measured) | \($0.verdict == .miss ? "**miss**" : $0.verdict.rawValue) |" }
        out.append("")
        out.append(GoalCheck.verdictSentence(goals))
        if !charts.isEmpty {
            out.append("")
            out.append("## Charts")
            out.append("")
            out += charts.map { "- [\($0.title)](\($0.file))\n\n  ![\($0.title)](\($0.file))" }
        }
        for scenario in scenarios {
            let rows = results.filter { $0.scenario == scenario.name }
            out.append("")
            out.append("## \(scenario.name)")
            out.append("")
            out.append(scenario.question)
            out.append("")
            if scenario.name == "decode" {
                out.append("Median MP/s (higher is better):")
                out.append("")
                out.append(DecodeTable.markdown(rows))
                out.append("")
                out.append("All decode rows with percentiles:")
                out.append("")
            }
            if scenario.name == "thumbnails" {
                out.append("Median ms (lower is better):")
                out.append("")
                out.append(ThumbnailTable.markdown(rows))
                out.append("")
                out.append("All thumbnail rows:")
                out.append("")
            }
            if scenario.name == "pressure" {
                out.append(PressureTable.markdown(rows))
                out.append("")
                out.append("All pressure rows:")
                out.append("")
            }
            out.append(table(rows))
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// "Pillow 13.0.0, libvips not installed, …": each peer's version as its module reports it.
    static func peerVersions(_ peers: [PeerStatus]) -> String {
        peers.map { status in
            switch status.installed {
            case .success(let peer): "\(status.peer.title) \(peer.version)"
            case .failure: "\(status.peer.title) not installed"
            }
        }.joined(separator: ", ")
    }

    /// A generic table: parameters, metric, unit, percentiles and sample count.
    public static func table(_ rows: [BenchResult]) -> String {
        guard !rows.isEmpty else { return "No rows (the scenario failed or was not run)." }
        var lines = ["| parameters | metric | unit | better | min | p50 | p25–p75 | p90 | p99 | max | n |",
                     "|---|---|---|---|---|---|---|---|---|---|---|"]
        for row in rows {
            let direction = row.direction == .lowerIsBetter ? "lower" : "higher"
            if let s = row.statistics {
                let cells = [cell(s.min), cell(s.p50), cell(s.p25) + "–" + cell(s.p75), cell(s.p90), cell(s.p99), cell(s.max)]
                lines.append("| \(row.parameters) | \(row.metric) | \(row.unit) | \(direction) | "
                             + cells.joined(separator: " | ") + " | \(s.count) |")
            } else {
                lines.append("| \(row.parameters) | \(row.metric) | \(row.unit) | \(direction) | skipped: "
                             + (row.skipped ?? "").replacingOccurrences(of: "|", with: "/") + " | | | | | | 0 |")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func cell(_ value: Double) -> String {
        abs(value) >= 100 ? String(format: "%.0f", value) : abs(value) >= 1 ? String(format: "%.2f", value) : String(format: "%.3f", value)
    }
}
