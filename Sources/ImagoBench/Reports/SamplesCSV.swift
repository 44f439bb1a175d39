/// `samples.csv`, beside `results.csv`: every measured row's raw samples, one line per sample
/// (`scenario,parameters,metric,sample,value`), so `imago bench compare` can tell a change from
/// noise without re-running anything.
///
/// A separate long-format file rather than a column of `;`-joined values in `results.csv`:
/// `results.csv` keeps the twelve columns its readers (spreadsheets, scripts, the DocC article)
/// know and stays readable at a glance, while this file is tidy data that any tool loads as-is.
/// Skipped rows have no samples and no lines here; `results.csv` still lists them.
public enum SamplesCSV {
    /// The file's name in a run directory.
    public static let fileName = "samples.csv"

    /// The columns, in order. `sample` counts from 1 in the order the samples were measured.
    public static let columns = ["scenario", "parameters", "metric", "sample", "value"]

    /// The file's text for `results`: a header, then every measured row's samples in order.
    public static func csv(_ results: [BenchResult]) -> String {
        var lines = [columns.joined(separator: ",")]
        for result in results {
            let key = [result.scenario, result.parameters, result.metric].map(CSVWriter.quote)
            for (index, value) in result.samples.enumerated() {
                lines.append((key + [String(index + 1), exact(value)]).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The shortest decimal that reads back as exactly `value` (Swift's round-trip description),
    /// so percentiles recomputed from this file equal the ones in `results.csv`.
    static func exact(_ value: Double) -> String {
        guard value.isFinite else { return CSVWriter.number(value) }
        let text = "\(value)"
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
