import Imago

/// The decode scenario as one Markdown table: a row per input, MP/s at the median per decoder
/// and state, and Imago's ratios against the bare C call and Pillow in the same state (Imago
/// fresh is a new buffer per decode with the reuse pool warm, so it pairs with C warm; Imago
/// fresh pages has the pool off, so it pairs with C into a new malloc'd buffer).
public enum DecodeTable {
    static let columns: [(decoder: String, state: String, title: String)] = [
        ("imago", "fresh", "Imago fresh"),
        ("c-direct", "warm", "C warm"),
        ("imago", "fresh-pages", "Imago fresh pages"),
        ("c-direct", "fresh", "C fresh"),
        ("imago", "cold-process", "Imago cold process"),
        ("pillow", "cold-process", "Pillow cold process"),
        ("pillow", "warm-loop", "Pillow warm loop"),
    ]

    public static func markdown(_ results: [BenchResult]) -> String {
        let decode = results.filter { $0.scenario == "decode" }
        var lines = ["| input | size | " + columns.map(\.title).joined(separator: " | ")
                     + " | Imago/C warm | Imago/C fresh pages | Imago cold/Pillow cold | Imago fresh/Pillow warm |"]
        lines.append("|" + String(repeating: "---|", count: columns.count + 6))
        var order: [String] = []
        for result in decode {
            let key = "\(result.parameter("format") ?? "") \(result.parameter("size") ?? "")"
            if !order.contains(key) { order.append(key) }
        }
        for key in order {
            let parts = key.split(separator: " ").map(String.init)
            guard parts.count == 2 else { continue }
            let rate = { (decoder: String, state: String) in
                DecodeGoals.rate(decode, format: parts[0], size: parts[1], decoder: decoder, state: state)
            }
            let cells = columns.map { rate($0.decoder, $0.state).map { format($0) } ?? "skipped" }
            let ratios = [(rate("imago", "fresh"), rate("c-direct", "warm")),
                          (rate("imago", "fresh-pages"), rate("c-direct", "fresh")),
                          (rate("imago", "cold-process"), rate("pillow", "cold-process")),
                          (rate("imago", "fresh"), rate("pillow", "warm-loop"))]
                .map { pair in pair.0.flatMap { a in pair.1.map { b in format(a / b, digits: 2) + "×" } } ?? "n/a" }
            lines.append("| \(parts[0]) | \(parts[1]) | " + (cells + ratios).joined(separator: " | ") + " |")
        }
        let skipped = Set(decode.compactMap { row in
            row.skipped.map { "- \(row.parameter("decoder") ?? "") \(row.parameter("state") ?? "") on \(row.parameter("format") ?? ""): skipped (\($0))" }
        })
        let pool = PixelMemory.retainedByteLimit >> 20
        let note = "Imago fresh takes its pages from PixelMemory's reuse pool (retainedByteLimit, \(pool) MiB in this run): "
            + "an image whose RGBA is larger (40 MP is 160 MB) gets fresh pages on every decode, so compare it with C fresh."
        return (lines + ["", note] + (skipped.isEmpty ? [] : [""] + skipped.sorted())).joined(separator: "\n")
    }

    static func format(_ value: Double, digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
}
