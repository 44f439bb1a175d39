import Foundation

/// `report.html`: what report.md says, on one self-contained page (inline CSS and SVG, no
/// scripts, nothing fetched): the run, the machine, the summary, the goals, and per scenario
/// its chart (inline) and its tables.
public enum HTMLReport {
    /// - Parameter loadAverages: /proc/loadavg at the start and the end of the run.
    /// - Parameter charts: ``ReportCharts/scenarioCharts(_:)`` for these results.
    /// - Parameter activity: what ran beside the run, from its CPU time (nil: unknown).
    /// - Parameter peers: the decode peers as this run found them (default none: no peers row).
    public static func html(results: [BenchResult], machine: MachineInfo, scenarios: [any BenchScenario],
                            quick: Bool, started: Date, duration: Double, loadAverages: (start: String, end: String),
                            activity: RunNoise.OtherActivity? = nil,
                            charts: [ReportCharts.Chart], peers: [PeerStatus] = []) -> String {
        var body = "<p>Run \(HTMLPage.escape(ISO8601DateFormatter().string(from: started))), \(quick ? "quick" : "full") mode, "
            + "\(HTMLPage.escape(ProgressReporter.format(seconds: duration))); scenarios: "
            + HTMLPage.escape(scenarios.map(\.name).joined(separator: ", "))
            + ". Raw rows: results.csv; every sample: \(SamplesCSV.fileName) (beside this page).</p>\n"
        body += "<h2>Machine</h2>\n" + HTMLPage.markdown(machine.markdown
            + "\n" + RunNoise.machineRows(loadAverages: loadAverages, activity: activity)
            + (peers.isEmpty ? "" : "\n| peers | \(MarkdownReport.peerVersions(peers)) |"))
        if let noise = RunNoise.reason(start: loadAverages.start, end: loadAverages.end, cores: machine.cores,
                                         activity: activity) {
            body += "<p class=\"noise\"><strong>A noisy run:</strong> \(HTMLPage.escape(noise)). "
                + "Its numbers vary more than a quiet run's; compare them with care.</p>\n"
        }
        body += "<h2>Summary</h2>\n" + HTMLPage.markdown(ReportSummary.markdown(results))
        body += "<h2>Goals</h2>\n" + goals(results)
        for scenario in scenarios {
            body += section(scenario, rows: results.filter { $0.scenario == scenario.name },
                            chart: charts.first { $0.scenario == scenario.name })
        }
        return HTMLPage.document(title: "Imago benchmark report", body: body)
    }

    /// The goal check, each row styled by its verdict (pass green, miss red, not measured grey).
    static func goals(_ results: [BenchResult]) -> String {
        let rows = GoalCheck.rows(results)
        return HTMLPage.table(["goal", "target", "measured", "verdict"], rows.map { row in
            (css: row.verdict.rawValue.replacingOccurrences(of: " ", with: "-"),
             cells: [row.goal, row.target, row.measured, row.verdict.rawValue])
        }) + "<p>" + HTMLPage.escape(GoalCheck.verdictSentence(rows)) + "</p>\n"
    }

    /// A scenario: its question, its chart inline (or why there is none), its own tables, all its rows.
    static func section(_ scenario: any BenchScenario, rows: [BenchResult], chart: ReportCharts.Chart?) -> String {
        var text = "<h2 id=\"\(HTMLPage.escape(scenario.name))\">\(HTMLPage.escape(scenario.name))</h2>\n"
            + "<p>\(HTMLPage.escape(scenario.question))</p>\n"
        if let chart {
            text += "<figure>" + inlineSVG(chart.svg) + "</figure>\n"
        } else {
            text += "<p>No chart: the scenario has no measured rows.</p>\n"
        }
        switch scenario.name {
        case "decode": text += "<p>Median MP/s (higher is better):</p>\n" + HTMLPage.markdown(DecodeTable.markdown(rows))
        case "thumbnails": text += "<p>Median ms (lower is better):</p>\n" + HTMLPage.markdown(ThumbnailTable.markdown(rows))
        case "pressure": text += HTMLPage.markdown(PressureTable.markdown(rows))
        default: break
        }
        return text + "<details><summary>All rows</summary>\n" + HTMLPage.markdown(MarkdownReport.table(rows)) + "</details>\n"
    }

    /// The chart's SVG document without its XML declaration, so it can sit inside the page.
    static func inlineSVG(_ svg: String) -> String {
        svg.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("<?xml") }.joined(separator: "\n")
    }
}
