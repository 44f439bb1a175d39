import Imago

/// The decode scenario as two Markdown tables, a row per input and MP/s at the median:
/// - warm: Imago and the bare C call in both allocator states, each peer's warm loop, and
///   Imago's ratios against C in the same state (Imago fresh is a new buffer per decode with
///   the reuse pool warm, so it pairs with C warm; Imago fresh pages has the pool off, so it
///   pairs with C into a new malloc'd buffer) and against the fastest peer;
/// - cold process: the first decode in a fresh process, Imago's and each peer's.
/// A peer that does not decode a format shows "—"; one the plan does not run at that size
/// (peers above 12 MP), "not run"; one that failed or is not installed, "skipped". The cold
/// table lists only the sizes with cold-process rows.
public enum DecodeTable {
    static let ownColumns: [(decoder: String, state: String, title: String)] = [
        ("imago", "fresh", "Imago fresh"),
        ("c-direct", "warm", "C warm"),
        ("imago", "fresh-pages", "Imago fresh pages"),
        ("c-direct", "fresh", "C fresh"),
    ]

    /// Both tables, then a note on the reuse pool and the peers, then the skipped rows with their reasons.
    public static func markdown(_ results: [BenchResult]) -> String {
        let decode = results.filter { $0.isDecodeThroughput }
        let peers = peerNames(decode)
        let inputs = inputs(of: decode)
        let warmColumns = ownColumns + peers.map { ($0, "warm-loop", PeerComparison.title($0) + " warm loop") }
        let coldColumns = [("imago", "cold-process", "Imago cold process")]
            + peers.map { ($0, "cold-process", PeerComparison.title($0) + " cold process") }
        var lines = header(warmColumns.map(\.title) + ["Imago/C warm", "Imago/C fresh pages", "Imago fresh/fastest peer warm"])
        for input in inputs {
            let rate = { (decoder: String, state: String) in
                DecodeGoals.rate(decode, format: input[0], size: input[1], decoder: decoder, state: state)
            }
            let fastest = PeerComparison.fastestDecode(decode, format: input[0], size: input[1])
            let ratios = [ratio(rate("imago", "fresh"), rate("c-direct", "warm")),
                          ratio(rate("imago", "fresh-pages"), rate("c-direct", "fresh")),
                          ratio(rate("imago", "fresh"), fastest?.value) + (fastest.map { " (\(PeerComparison.title($0.peer)))" } ?? "")]
            lines.append(row(input, warmColumns.map { cell(decode, input, $0.decoder, $0.state) } + ratios))
        }
        lines += [""] + header(coldColumns.map(\.2) + ["Imago cold/fastest peer cold"])
        let coldInputs = inputs.filter { input in
            decode.contains { $0.parameter("format") == input[0] && $0.parameter("size") == input[1] && $0.parameter("state") == "cold-process" }
        }
        for input in coldInputs {
            let fastest = PeerComparison.fastestDecode(decode, format: input[0], size: input[1], state: "cold-process")
            let imago = DecodeGoals.rate(decode, format: input[0], size: input[1], decoder: "imago", state: "cold-process")
            let last = ratio(imago, fastest?.value) + (fastest.map { " (\(PeerComparison.title($0.peer)))" } ?? "")
            lines.append(row(input, coldColumns.map { cell(decode, input, $0.0, $0.1) } + [last]))
        }
        let skipped = Set(decode.compactMap { row in
            row.skipped.map { "- \(row.parameter("decoder") ?? "") \(row.parameter("state") ?? "") on \(row.parameter("format") ?? ""): skipped (\($0))" }
        })
        let pool = PixelMemory.retainedByteLimit >> 20
        let note = "Imago fresh takes its pages from PixelMemory's reuse pool (retainedByteLimit, \(pool) MiB in this run): "
            + "an image whose RGBA is larger (40 MP is 160 MB) gets fresh pages on every decode, so compare it with C fresh. "
            + "The plan: peers up to \(BenchInput.megapixelsText(DecodeScenario.largestPeerSize)) MP, cold processes at "
            + DecodeScenario.coldSizes.sorted().map(BenchInput.megapixelsText).joined(separator: " and ")
            + " MP. Peers: " + DecodePeers.all.map { "\($0.title): \($0.note)" }.joined(separator: "; ") + "."
        return (lines + instructions(results) + ["", note] + (skipped.isEmpty ? [] : [""] + skipped.sorted()))
            .joined(separator: "\n")
    }

    /// The instruction rows (``InstructionCounter``) as a table of their own, with a blank line
    /// before it: median instructions per pixel, Imago against the bare C call. Empty without them.
    static func instructions(_ results: [BenchResult]) -> [String] {
        let counted = results.filter { $0.scenario == "decode" && $0.metric == "instructions" }
        guard !counted.isEmpty else { return [] }
        let inputs = inputs(of: counted)
        var lines = ["", "Instructions per pixel, counted by callgrind (lower is better; they do not move with the machine):", ""]
        lines += header(["Imago", "C direct", "Imago/C"])
        for input in inputs {
            let count = { (decoder: String) in
                counted.first { $0.parameter("format") == input[0] && $0.parameter("size") == input[1]
                    && $0.parameter("decoder") == decoder }
            }
            let imago = count("imago"), c = count("c-direct")
            let ratio = imago?.p50.flatMap { i in c?.p50.map { String(format: "%.3f×", i / $0) } } ?? "n/a"
            lines.append(row(input, [imago, c].map { $0?.p50.map { String(format: "%.1f", $0) } ?? "skipped" } + [ratio]))
        }
        return lines
    }

    /// The (format, size) pairs of `rows`, in row order.
    static func inputs(of rows: [BenchResult]) -> [[String]] {
        ReportCharts.orderedKeys(rows) { "\($0.parameter("format") ?? "") \($0.parameter("size") ?? "")" }
            .map { $0.split(separator: " ").map(String.init) }.filter { $0.count == 2 }
    }

    /// The peers with rows, in `DecodePeers.all` order, then any other decoder in row order.
    static func peerNames(_ rows: [BenchResult]) -> [String] {
        let present = ReportCharts.orderedKeys(rows) { $0.parameter("decoder") ?? "" }
            .filter { !PeerComparison.ownDecoders.contains($0) && !$0.isEmpty }
        let known = DecodePeers.all.map(\.name).filter(present.contains)
        return known + present.filter { !known.contains($0) }
    }

    static func cell(_ rows: [BenchResult], _ input: [String], _ decoder: String, _ state: String) -> String {
        guard let row = rows.first(where: {
            $0.parameter("format") == input[0] && $0.parameter("size") == input[1]
                && $0.parameter("decoder") == decoder && $0.parameter("state") == state
        }) else {
            let peer = DecodePeers.all.first { $0.name == decoder }
            return peer?.decodes(kind: input[0]) == true ? "not run" : "—"
        }
        return row.p50.map { format($0) } ?? "skipped"
    }

    static func ratio(_ a: Double?, _ b: Double?) -> String {
        a.flatMap { a in b.map { b in format(a / b, digits: 2) + "×" } } ?? "n/a"
    }

    static func header(_ titles: [String]) -> [String] {
        ["| input | size | " + titles.joined(separator: " | ") + " |", "|" + String(repeating: "---|", count: titles.count + 2)]
    }

    static func row(_ input: [String], _ cells: [String]) -> String {
        "| \(input[0]) | \(input[1]) | " + cells.joined(separator: " | ") + " |"
    }

    static func format(_ value: Double, digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
}
