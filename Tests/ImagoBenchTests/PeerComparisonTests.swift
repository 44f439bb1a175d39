import Testing
@testable import ImagoBench

/// The fastest-peer logic and the tables, from synthetic rows.
struct PeerComparisonTests {
    private func decode(_ format: String, _ decoder: String, _ state: String, _ rate: Double?) -> BenchResult {
        .decodeRow(format, "12MP", decoder, state, rate)
    }

    private var rows: [BenchResult] {
        [decode("png-rgb8", "imago", "fresh", 33), decode("png-rgb8", "c-direct", "warm", 34),
         decode("png-rgb8", "pillow", "warm-loop", 23), decode("png-rgb8", "libvips", "warm-loop", 48),
         decode("png-rgb8", "libspng", "warm-loop", nil),   // skipped: never the fastest
         decode("png-rgb8", "imago", "cold-process", 30), decode("png-rgb8", "libvips", "cold-process", 40),
         decode("jpeg-baseline", "imago", "fresh", 360), decode("jpeg-baseline", "simplejpeg", "warm-loop", 330),
         decode("jpeg-baseline", "opencv", "warm-loop", 160),
         decode("webp-lossy", "imago", "fresh", 160), decode("webp-lossy", "opencv", "warm-loop", nil)]
    }

    @Test func theFastestPeerIsTheHighestMeasuredMedianNeverImagoOrC() {
        #expect(PeerComparison.fastestDecode(rows, format: "png-rgb8", size: "12MP") == .init(peer: "libvips", value: 48))
        #expect(PeerComparison.fastestDecode(rows, format: "png-rgb8", size: "12MP", state: "cold-process")?.peer == "libvips")
        #expect(PeerComparison.fastestDecode(rows, format: "jpeg-baseline", size: "12MP")?.peer == "simplejpeg")
        #expect(PeerComparison.fastestDecode(rows, format: "webp-lossy", size: "12MP") == nil)
        #expect(PeerComparison.fastestDecode(rows, format: "png-rgb8", size: "40MP") == nil)
    }

    @Test func theSummaryGivesImagosRatioToTheFastestPeerPerFormat() {
        #expect(PeerComparison.decodeSummary(rows, size: "12MP") == [
            "png-rgb8: Imago 33 MP/s, fastest peer libvips 48 (0.69×)",
            "jpeg-baseline: Imago 360 MP/s, fastest peer simplejpeg 330 (1.09×)",
            "webp-lossy: Imago 160 MP/s, no peer measured",
        ])
        let answer = ReportSummary.decodePeers(rows)
        #expect(answer?.1.contains("fastest peer libvips 48 (0.69×)") == true)
        #expect(ReportSummary.decodePeers([]) == nil)
    }

    /// "—": the peer does not decode the format; "not run": it does, and the plan has no row
    /// for it (OpenCV's PNG here, the peers at 40 MP in a run); "skipped": it failed or is
    /// not installed. The cold table lists only inputs with cold-process rows.
    @Test func theDecodeTableHasAColumnPerPeerAndSaysSkippedNotRunOrDash() {
        let table = DecodeTable.markdown(rows + [
            BenchResult(scenario: "decode", parameters: "format=png-rgb8 size=40MP decoder=imago state=fresh", metric: "throughput",
                        unit: "MP/s", direction: .higherIsBetter, samples: [31]),
        ])
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[0].contains("Pillow warm loop | libvips warm loop | OpenCV warm loop | simplejpeg warm loop | libspng warm loop"))
        let png = lines.first { $0.hasPrefix("| png-rgb8 | 12MP | 33.0 |") } ?? ""
        #expect(png.contains("| 23.0 | 48.0 | not run | — | skipped |"), "\(png)")
        #expect(png.hasSuffix("| 0.69× (libvips) |"))
        let large = lines.first { $0.hasPrefix("| png-rgb8 | 40MP | 31.0 |") } ?? ""
        #expect(large.contains("| not run | not run | not run | — | not run |"), "\(large)")
        #expect(table.contains("| png-rgb8 | 12MP | 30.0 | not run | 40.0 | not run | — | not run | 0.75× (libvips) |"), "\(table)")
        let coldHeader = lines.firstIndex { $0.contains("Imago cold process") } ?? lines.count
        #expect(lines[coldHeader...].filter { $0.hasPrefix("| ") && !$0.hasPrefix("| input") }.count == 1,
                "only png-rgb8 12MP has cold rows")
        #expect(table.contains("- libspng warm-loop on png-rgb8: skipped (libspng not installed)"))
        #expect(table.contains("The plan: peers up to 12 MP, cold processes at 12 MP."))
    }

    @Test func theThumbnailSummaryTakesTheQuickestMeasuredPeer() {
        func row(_ method: String, _ ms: Double?, path: String? = nil) -> BenchResult {
            let parameters = "format=png-rgb8 size=12MP method=\(method) thumbnail=256px" + (path.map { " path=\($0)" } ?? "")
            guard let ms else {
                return BenchResult(scenario: "thumbnails", parameters: parameters, metric: "time", unit: "ms",
                                   direction: .lowerIsBetter, skipped: "opencv not installed")
            }
            return BenchResult(scenario: "thumbnails", parameters: parameters, metric: "time", unit: "ms",
                               direction: .lowerIsBetter, samples: [ms])
        }
        let rows = [row("downsampled-decode", 407), row("full-decode+resize", 450),
                    row("libvips", 214, path: "full-decode+resize"), row("pillow", 600, path: "full-decode+resize"),
                    row("opencv", nil, path: "full-decode+resize")]
        #expect(PeerComparison.fastestThumbnail(rows, format: "png-rgb8", size: "12MP") == .init(peer: "libvips", value: 214))
        #expect(PeerComparison.thumbnailSummary(rows) == ["png-rgb8 12MP: Imago 407 ms, fastest peer libvips 214 ms (Imago 0.53× as fast)"])
        let table = ThumbnailTable.markdown(rows)
        #expect(table.contains("| png-rgb8 | 12MP | 407.0 | 450.0 | 214.0 (full-decode+resize) | 600.0 (full-decode+resize) | skipped (full-decode+resize) | 0.53× (libvips) |"), "\(table)")
        #expect(PeerComparison.thumbnailSummary(Array(rows.prefix(2))) == ["png-rgb8 12MP: Imago 407 ms, no peer measured"])
    }
}
