import Foundation

/// Imago against its peers, from measured rows only: which peer is fastest at a format and
/// size, and Imago's ratio to it. A skipped row (peer not installed, interpreter failed) never
/// counts, and a format no peer measured has no fastest peer.
public enum PeerComparison {
    /// The fastest measured peer: its `decoder` name and median.
    public struct Fastest: Sendable, Equatable {
        /// The peer's `decoder` name (the thumbnail rows' `method`), e.g. "libvips".
        public let peer: String
        /// Its median: MP/s for decode rows, ms for thumbnail rows.
        public let value: Double
    }

    /// Decoders that are Imago's own paths rather than peers.
    static let ownDecoders: Set<String> = ["imago", "c-direct"]

    /// The peer with the highest median MP/s among the decode rows of `format`, `size`, `state`.
    public static func fastestDecode(_ results: [BenchResult], format: String, size: String,
                                     state: String = "warm-loop") -> Fastest? {
        let candidates = results.filter {
            $0.isDecodeThroughput && $0.parameter("format") == format && $0.parameter("size") == size
                && $0.parameter("state") == state && !ownDecoders.contains($0.parameter("decoder") ?? "")
        }
        return candidates.compactMap { row in row.p50.map { Fastest(peer: row.parameter("decoder") ?? "", value: $0) } }
            .max { $0.value < $1.value }
    }

    /// The peer with the lowest median thumbnail time among the rows of `format`, `size`.
    public static func fastestThumbnail(_ results: [BenchResult], format: String, size: String) -> Fastest? {
        let imagoMethods = Set(MemoryProbe.ThumbnailMethod.allCases.map(\.rawValue))
        let candidates = results.filter {
            $0.scenario == "thumbnails" && $0.metric == "time" && $0.parameter("format") == format
                && $0.parameter("size") == size && !imagoMethods.contains($0.parameter("method") ?? "")
        }
        return candidates.compactMap { row in row.p50.map { Fastest(peer: row.parameter("method") ?? "", value: $0) } }
            .min { $0.value < $1.value }
    }

    /// The report's name for a peer's `decoder` value ("opencv" → "OpenCV").
    public static func title(_ decoder: String) -> String { DecodePeers.named(decoder)?.title ?? decoder }

    /// "png-rgb8: Imago 33 MP/s, fastest peer libvips 48 (0.69×)" per decoded format at `size`
    /// (warm: Imago fresh against the peers' warm loops); "no peer measured" where none was.
    public static func decodeSummary(_ results: [BenchResult], size: String) -> [String] {
        ReportCharts.orderedKeys(results.filter { $0.isDecodeThroughput && $0.parameter("size") == size }) {
            $0.parameter("format") ?? ""
        }.compactMap { format in
            guard let imago = DecodeGoals.rate(results, format: format, size: size, decoder: "imago", state: "fresh") else { return nil }
            let head = "\(format): Imago \(String(format: "%.0f", imago)) MP/s"
            guard let fastest = fastestDecode(results, format: format, size: size) else { return head + ", no peer measured" }
            return head + ", fastest peer \(title(fastest.peer)) \(String(format: "%.0f", fastest.value))"
                + " (\(String(format: "%.2f", imago / fastest.value))×)"
        }
    }

    /// "jpeg-baseline 12MP: Imago 40 ms, fastest peer libvips 80 ms (2.00× faster)" per input,
    /// Imago's downsampled decode against the quickest peer thumbnail.
    public static func thumbnailSummary(_ results: [BenchResult]) -> [String] {
        let rows = results.filter { $0.scenario == "thumbnails" && $0.metric == "time" }
        return ReportCharts.orderedKeys(rows) { "\($0.parameter("format") ?? "") \($0.parameter("size") ?? "")" }.compactMap { key in
            let parts = key.split(separator: " ").map(String.init)
            guard parts.count == 2, let imago = rows.first(where: {
                $0.parameter("format") == parts[0] && $0.parameter("size") == parts[1]
                    && $0.parameter("method") == MemoryProbe.ThumbnailMethod.downsampledDecode.rawValue
            })?.p50 else { return nil }
            let head = "\(key): Imago \(String(format: "%.0f", imago)) ms"
            guard let fastest = fastestThumbnail(results, format: parts[0], size: parts[1]) else { return head + ", no peer measured" }
            return head + ", fastest peer \(title(fastest.peer)) \(String(format: "%.0f", fastest.value)) ms"
                + " (Imago \(String(format: "%.2f", fastest.value / imago))× as fast)"
        }
    }
}
