import Foundation

/// `results.csv`: one row per scenario × parameters × metric (RFC 4180 quoting).
public enum CSVWriter {
    /// The columns, in order. `note` is empty for measured rows and says why for skipped ones.
    public static let columns = ["scenario", "parameters", "metric", "unit", "direction",
                                 "min", "p25", "p50", "p75", "p90", "p99", "max", "samples", "note"]

    public static func csv(_ results: [BenchResult]) -> String {
        var lines = [columns.joined(separator: ",")]
        for result in results {
            let stats = result.statistics
            let numbers = [stats?.min, stats?.p25, stats?.p50, stats?.p75, stats?.p90, stats?.p99, stats?.max].map { $0.map(number) ?? "" }
            let fields = [result.scenario, result.parameters, result.metric, result.unit, result.direction.rawValue]
                + numbers + [String(stats?.count ?? 0), result.skipped.map { "skipped: \($0)" } ?? ""]
            lines.append(fields.map(quote).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Quotes a field when it holds a comma, quote or line break (quotes doubled).
    public static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Plain decimal with up to 4 fractional digits, no exponent, trailing zeros dropped.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        var text = String(format: "%.4f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
