/// The decode benchmark as a Markdown table: one row per input, MP/s at the median per
/// decoder and state, and Imago's ratios against the bare C call and Pillow.
public enum DecodeReport {
    static let columns: [(decoder: String, state: String, title: String)] = [
        ("imago", "fresh", "Imago fresh"),
        ("c-direct", "fresh", "C fresh"),
        ("c-direct", "warm", "C warm"),
        ("imago", "cold-process", "Imago cold process"),
        ("pillow", "cold-process", "Pillow cold process"),
        ("pillow", "warm-loop", "Pillow warm loop"),
    ]

    public static func markdown(_ measurements: [DecodeMeasurement]) -> String {
        var lines = ["| input | MP | " + columns.map(\.title).joined(separator: " | ")
                     + " | Imago/C fresh | Imago cold/Pillow cold | Imago fresh/Pillow warm |"]
        lines.append("|" + String(repeating: "---|", count: columns.count + 5))
        var order: [String] = []
        var byInput: [String: [DecodeMeasurement]] = [:]
        for m in measurements {
            if byInput[m.input.path] == nil { order.append(m.input.path) }
            byInput[m.input.path, default: []].append(m)
        }
        for path in order {
            let rows = byInput[path] ?? []
            guard let input = rows.first?.input else { continue }
            func rate(_ decoder: String, _ state: String) -> Double? {
                rows.first { $0.decoder == decoder && $0.state == state }?.megapixelsPerSecond
            }
            let cells = columns.map { column in rate(column.decoder, column.state).map(format) ?? "skipped" }
            let ratios = [(rate("imago", "fresh"), rate("c-direct", "fresh")),
                          (rate("imago", "cold-process"), rate("pillow", "cold-process")),
                          (rate("imago", "fresh"), rate("pillow", "warm-loop"))]
                .map { pair in pair.0.flatMap { a in pair.1.map { b in String(format: "%.2fx", a / b) } } ?? "n/a" }
            lines.append("| \(input.kind) | \(String(format: "%.1f", input.megapixels)) | "
                         + (cells + ratios).joined(separator: " | ") + " |")
        }
        let skipped = measurements.compactMap { m in m.skipped.map { "- \(m.decoder) \(m.state) on \(m.input.kind): skipped (\($0))" } }
        return (lines + (skipped.isEmpty ? [] : [""] + Array(Set(skipped)).sorted())).joined(separator: "\n")
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
