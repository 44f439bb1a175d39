import Foundation
import ImagoTestSupport
import Testing
@testable import ImagoBench

/// Each installed peer for real, on the corpus's small images (a few interpreters per peer);
/// a peer that is not installed (`make peers` is not part of `make test`) is skipped with the reason.
struct PeerRunTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Corpus")
    /// A small file per family: 101×77 JPEG, 160×120 PNG, 8-bit lossy WebP.
    static let files: [PeerFormat: (kind: String, path: String)] = [
        .jpeg: ("jpeg-baseline", corpus.appendingPathComponent("jpeg/baseline-420-q50.jpg").path),
        .png: ("png-rgb8", corpus.appendingPathComponent("png/rgb-8-160x120.png").path),
        .webp: ("webp-lossy", corpus.appendingPathComponent("webp/lossy-q80.webp").path),
    ]

    @Test(arguments: DecodePeers.all.map(\.name))
    func theInstalledPeerDecodesEachOfItsFormatsInAWarmSession(name: String) throws {
        let peer = try #require(DecodePeers.named(name))
        let installed: InstalledPeer
        switch PeerStatus.locate(peer).installed {
        case .success(let found): installed = found
        case .failure(let unavailable): try TestSkip.skip(unavailable.reason)
        }
        #expect(!installed.version.isEmpty)
        let session = try installed.warmSession(.decode)
        for format in PeerFormat.allCases.filter(peer.formats.contains) {
            let file = try #require(Self.files[format])
            let ms = try session.milliseconds(file: file.path)
            #expect(ms > 0 && ms < 10_000, "\(name) on \(file.kind): \(ms) ms")
            // A batch answers one line too: the mean of its runs.
            let mean = try session.milliseconds(file: file.path, batch: 3)
            #expect(mean > 0 && mean < 10_000, "\(name) on \(file.kind), batch of 3: \(mean) ms")
        }
        // A file it cannot read is an error line, not a number.
        #expect(throws: PeerUnavailable.self) { try session.milliseconds(file: "/nonexistent/peer-test.png") }
    }

    @Test(arguments: DecodePeers.all.filter { $0.thumbnailMethod(kind: "jpeg-baseline") != nil }.map(\.name))
    func theInstalledPeerMakesAThumbnailInAColdProcess(name: String) throws {
        let peer = try #require(DecodePeers.named(name))
        guard case .success(let installed) = PeerStatus.locate(peer).installed else {
            try TestSkip.skip("\(name) not installed")
        }
        let samples = try installed.coldSamples(.thumbnail, file: try #require(Self.files[.jpeg]).path, processes: 1)
        #expect(samples.count == 1 && samples[0] > 0)
    }

    @Test func aModuleThatDoesNotImportIsNotInstalled() {
        let ghost = DecodePeer(name: "ghost", title: "Ghost", module: "imago_no_such_module",
                               versionExpression: "imago_no_such_module.__version__", formats: [.png],
                               setup: "import imago_no_such_module", decode: "pass", thumbnail: nil,
                               thumbnailMethods: [:], environment: [:], note: "")
        guard case .failure(let unavailable) = PeerStatus.locate(ghost).installed else {
            Issue.record("a module that does not exist was found")
            return
        }
        #expect(unavailable.reason.hasPrefix("ghost not installed"))
    }
}
