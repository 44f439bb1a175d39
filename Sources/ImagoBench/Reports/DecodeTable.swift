/// The decode scenario as one Markdown table: a row per input, MP/s at the median per decoder
/// and state, and Imago's ratios against the bare C call and Pillow in the same state.
public enum DecodeTable {
    static let columns: [(decoder: String, state: String, title: String)] = [
        ("imago", "fresh", "Imago fresh"),
        ("c-direct", "fresh", "C fresh"),
        ("c-direct", "warm", "C warm"),
        ("imago", "cold-process", "Imago cold process"),
        ("pillow", "cold-process", "Pillow cold process"),
        ("pillow", "warm-loop", "Pillow warm loop"),
    ]

    public static func markdown(_ results: [BenchResult]) -> String {
        let decode = results.filter { $0.scenario == "decode" }
        var lines = ["| input | size | " + columns.map(\.title).joined(separator: " | ")
                     + " | Imago/C fresh | Imago cold/Pillow cold | Imago fresh/Pillow warm |"]
        lines.append("|" + String(repeating: "---|", count: columns.count + 5))
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
            let ratios = [(rate("imago", "fresh"), rate("c-direct", "fresh")),
                          (rate("imago", "cold-process"), rate("pillow", "cold-process")),
                          (rate("imago", "fresh"), rate("pillow", "warm-loop"))]
                .map { pair in pair.0.flatMap { a in pair.1.map { b in format(a / b, digits: 2) + "×" } } ?? "n/a" }
            lines.append("| \(parts[0]) | \(parts[1]) | " + (cells + ratios).joined(separator: " | ") + " |")
        }
        let skipped = Set(decode.compactMap { row in
            row.skipped.map { "- \(row.parameter("decoder") ?? "") \(row.parameter("state") ?? "") on \(row.parameter("format") ?? ""): skipped (\($0))" }
        })
        return (lines + (skipped.isEmpty ? [] : [""] + skipped.sorted())).joined(separator: "\n")
    }

    static func format(_ value: Double, digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
}
