import Foundation

/// How a ``RunComparison`` is shown: a short table for the terminal, `comparison.md` and a
/// self-contained `comparison.html` (inline CSS, no scripts, nothing fetched).
public enum ComparisonReport {
    /// The reports' column headings.
    static let headings = ["scenario", "parameters", "metric", "unit", "base p50", "new p50", "n", "change",
                           "95% CI", "threshold", "verdict", "note"]

    /// One line per row (verdict first, so a regression is easy to spot), then the conclusion.
    public static func lines(_ comparison: RunComparison) -> [String] {
        comparison.rows.map { row in
            let verdict = pad(row.verdict.rawValue.uppercased(), 16)
            let change = pad(percent(row.change) + " " + interval(row.interval), 28)
            let values = "\(value(row.baseMedian)) → \(value(row.newMedian)) \(row.unit)"
            let note = row.note.isEmpty ? "" : " (\(row.note))"
            return "\(verdict)\(change)\(row.key): \(values)\(note)"
        } + [conclusion(comparison)]
    }

    /// The counts of each verdict and what the exit status means.
    public static func conclusion(_ comparison: RunComparison) -> String {
        let order: [RunComparison.Verdict] = [.worse, .removed, .better, .added, .withinNoise, .tooFewSamples, .reference,
                                              .skipped]
        let counts = order.compactMap { verdict -> String? in
            let count = comparison.rows.filter { $0.verdict == verdict }.count
            return count == 0 ? nil : "\(count) \(verdict.rawValue)"
        }
        let meaning = switch comparison.status {
        case .regression: "a regression"
        case .improvement: "improvements only"
        case .within: "no change beyond noise"
        }
        return "bench compare: \(counts.joined(separator: ", ")): \(meaning) (exit \(comparison.status.rawValue))"
    }

    /// `comparison.md`: a title naming the runs, the rule, the table and the conclusion.
    public static func markdown(_ comparison: RunComparison, base: String, new: String) -> String {
        var text = "# Benchmark comparison\n\nBASE: `\(base)`  \nNEW: `\(new)`\n\n\(rule)\n\n"
        text += "| " + headings.joined(separator: " | ") + " |\n"
        text += "|" + String(repeating: "---|", count: headings.count) + "\n"
        for row in comparison.rows {
            text += "| " + cells(row).map { $0.replacingOccurrences(of: "|", with: "/") }.joined(separator: " | ") + " |\n"
        }
        return text + "\n" + conclusion(comparison) + "\n"
    }

    /// `comparison.html`: the same as the Markdown, one page that opens offline.
    public static func html(_ comparison: RunComparison, base: String, new: String) -> String {
        var body = "<p>BASE: <code>\(escape(base))</code><br/>NEW: <code>\(escape(new))</code></p>\n<p>\(escape(rule))</p>\n"
        body += HTMLPage.table(headings, comparison.rows.map { row in
            (css: row.verdict.rawValue.replacingOccurrences(of: " ", with: "-"), cells: cells(row))
        }, numeric: [4, 5, 6, 7, 8, 9])
        return HTMLPage.document(title: "Benchmark comparison", body: body + "<p>\(escape(conclusion(comparison)))</p>\n")
    }

    /// The decision rule, stated in both reports.
    static let rule = "change = NEW p50 / BASE p50 − 1; 95% CI by bootstrap (\(MedianBootstrap().resamples) resamples per side, "
        + "seeded). Better or worse only when the CI excludes 0 and the change passes the threshold; "
        + "fewer than \(RunComparison.minimumSamples) samples a side: no verdict. Rows of code neither build changes "
        + "(the bare C call, the peers) are references: their change is the machine's, and the rows measured beside "
        + "them are judged after dividing NEW by the median factor their references moved by."

    private static func cells(_ row: RunComparison.Row) -> [String] {
        let threshold = String(format: "%.0f%%", row.threshold.relative * 100)
            + (row.threshold.absolute > 0 ? " / \(value(row.threshold.absolute)) \(row.unit)" : "")
        return [row.key.scenario, row.key.parameters, row.key.metric, row.unit, value(row.baseMedian), value(row.newMedian),
                "\(row.baseCount) / \(row.newCount)", percent(row.change), interval(row.interval), threshold,
                row.verdict.rawValue, row.note]
    }

    /// `text` and spaces up to `width` characters, at least one (never truncated).
    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(width - text.count, 1))
    }

    static func percent(_ change: Double?) -> String {
        guard let change else { return "—" }
        return String(format: "%+.1f%%", change * 100)
    }

    static func interval(_ range: ClosedRange<Double>?) -> String {
        guard let range else { return "" }
        return "[\(percent(range.lowerBound)), \(percent(range.upperBound))]"
    }

    static func value(_ number: Double?) -> String {
        number.map(CSVWriter.number) ?? "—"
    }

    static func escape(_ text: String) -> String { HTMLPage.escape(text) }
}
