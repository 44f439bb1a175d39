/// The thumbnail scenario's times as one Markdown table: a row per input, the median ms of
/// Imago's two methods and of each peer (with the peer's path: downsampled decode or full
/// decode + resize), "—" where a peer makes no thumbnail of that format.
public enum ThumbnailTable {
    /// The table, then the skipped rows with their reasons.
    public static func markdown(_ results: [BenchResult]) -> String {
        let rows = results.filter { $0.scenario == "thumbnails" && $0.metric == "time" }
        let methods = ReportCharts.orderedKeys(rows) { $0.parameter("method") ?? "" }
        let inputs = ReportCharts.orderedKeys(rows) { "\($0.parameter("format") ?? "") \($0.parameter("size") ?? "")" }
            .map { $0.split(separator: " ").map(String.init) }.filter { $0.count == 2 }
        let titles = methods.map { method in
            MemoryProbe.ThumbnailMethod(rawValue: method).map { "Imago \($0.rawValue)" } ?? PeerComparison.title(method)
        }
        var lines = DecodeTable.header(titles + ["fastest peer / Imago downsampled"])
        for input in inputs {
            let cells = methods.map { method -> String in
                guard let row = rows.first(where: {
                    $0.parameter("format") == input[0] && $0.parameter("size") == input[1] && $0.parameter("method") == method
                }) else { return "—" }
                let path = row.parameter("path").map { " (\($0))" } ?? ""
                return (row.p50.map { DecodeTable.format($0) } ?? "skipped") + path
            }
            let imago = rows.first {
                $0.parameter("format") == input[0] && $0.parameter("size") == input[1]
                    && $0.parameter("method") == MemoryProbe.ThumbnailMethod.downsampledDecode.rawValue
            }?.p50
            let fastest = PeerComparison.fastestThumbnail(results, format: input[0], size: input[1])
            let ratio = DecodeTable.ratio(fastest?.value, imago) + (fastest.map { " (\(PeerComparison.title($0.peer)))" } ?? "")
            lines.append(DecodeTable.row(input, cells + [ratio]))
        }
        let skipped = Set(rows.compactMap { row in
            row.skipped.map { "- \(row.parameter("method") ?? "") on \(row.parameter("format") ?? ""): skipped (\($0))" }
        })
        return (lines + (skipped.isEmpty ? [] : [""] + skipped.sorted())).joined(separator: "\n")
    }
}
