import Testing
@testable import ImagoBench

/// The peer registry and the programs built from it (no interpreter is started here).
struct DecodePeerTests {
    static let expectedFormats: [(name: String, formats: Set<PeerFormat>)] = [
        ("pillow", [.jpeg, .png, .webp]), ("libvips", [.jpeg, .png, .webp]),
        ("opencv", [.jpeg, .png, .webp]), ("simplejpeg", [.jpeg]), ("libspng", [.png]),
    ]

    @Test(arguments: expectedFormats)
    func everyPeerDecodesItsFormats(_ expected: (name: String, formats: Set<PeerFormat>)) throws {
        let (name, formats) = expected
        let peer = try #require(DecodePeers.named(name))
        #expect(peer.formats == formats)
        for kind in ["jpeg-baseline", "jpeg-progressive", "png-rgb8", "webp-lossy", "webp-lossless"] {
            #expect(peer.decodes(kind: kind) == formats.contains(PeerFormat(kind: kind)!), "\(name) on \(kind)")
        }
        #expect(!peer.decodes(kind: "gif-animated"))
    }

    @Test func theRegistryNamesEachPeerOnceInReportOrder() {
        #expect(DecodePeers.all.map(\.name) == ["pillow", "libvips", "opencv", "simplejpeg", "libspng"])
        #expect(DecodePeers.named("imago") == nil)
    }

    @Test func thumbnailMethodsSayWhereTheCodecDownsamples() {
        #expect(DecodePeers.libspng.thumbnailMethod(kind: "png-rgb8") == nil)
        #expect(DecodePeers.simplejpeg.thumbnailMethod(kind: "png-rgb8") == nil)
        #expect(DecodePeers.simplejpeg.thumbnailMethod(kind: "jpeg-baseline") == .downsampledDecode)
        #expect(DecodePeers.opencv.thumbnailMethod(kind: "png-rgb8") == .fullDecodeResize)
        #expect(DecodePeers.opencv.thumbnailMethod(kind: "webp-lossy") == .fullDecodeResize)
        #expect(DecodePeers.libvips.thumbnailMethod(kind: "webp-lossy") == .downsampledDecode)
        #expect(DecodePeers.pillow.thumbnailMethod(kind: "jpeg-progressive") == .downsampledDecode)
    }

    @Test func theScriptTimesTheTaskSnippetIndentedUnderWork() throws {
        let decode = try #require(PeerScript.timing(DecodePeers.opencv, .decode))
        #expect(decode.contains("cv2.setNumThreads(1)\ndef work(path):\n    im = cv2.imread(path, cv2.IMREAD_UNCHANGED)\n"))
        #expect(!decode.contains("IMREAD_REDUCED"))
        let thumbnail = try #require(PeerScript.timing(DecodePeers.opencv, .thumbnail))
        #expect(thumbnail.contains("def work(path):\n    im = cv2.imread(path, cv2.IMREAD_REDUCED_COLOR_8)\n"))
        #expect(PeerScript.timing(DecodePeers.libspng, .thumbnail) == nil)
        #expect(PeerScript.version(DecodePeers.simplejpeg) == "import simplejpeg\nprint(simplejpeg.__version__)")
    }

    @Test func decodeVariantsHoldOnlyThePeersOfTheFormat() {
        let peers = DecodePeers.all.map { PeerStatus(peer: $0, installed: .failure(PeerUnavailable(reason: "test"))) }
        let benchmark = DecodeBenchmark(plan: SamplingPlan(warmUp: 0, minSamples: 1, maxSamples: 1, minSeconds: 0),
                                        executable: "/nonexistent", peers: peers)
        let png = benchmark.variants(kind: "png-rgb8").map { "\($0.decoder) \($0.state)" }
        #expect(png == ["imago fresh", "c-direct warm", "pillow warm-loop", "libvips warm-loop", "opencv warm-loop",
                        "libspng warm-loop", "imago fresh-pages", "c-direct fresh", "imago cold-process",
                        "pillow cold-process", "libvips cold-process", "opencv cold-process", "libspng cold-process"])
        #expect(benchmark.variants(kind: "webp-lossy").filter { $0.decoder == "simplejpeg" || $0.decoder == "libspng" }.isEmpty)
    }

    @Test func aPeerThatIsNotInstalledGetsSkippedThumbnailRowsAndNoProcess() {
        let absent = PeerStatus(peer: DecodePeers.libvips, installed: .failure(PeerUnavailable(reason: "libvips not installed (x)")))
        let input = BenchInput(kind: "jpeg-baseline", path: "/nonexistent.jpg", width: 4000, height: 3000, nominalMegapixels: 12)
        let thumbnails = PeerThumbnails(input: input, peers: [absent])
        #expect(thumbnails.variants.isEmpty)
        let rows = thumbnails.rows(scenario: "thumbnails", timings: [:], thumbnail: "256px")
        #expect(rows.map(\.skipped) == ["libvips not installed (x)"])
        #expect(rows.first?.parameter("path") == "downsampled-decode")
    }
}
