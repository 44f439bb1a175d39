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

    // A peer's Python answers over a pipe, and every answer is waited for: on a thread of its own
    // (`onOwnThread`), never on one of the cooperative pool's that the other tests share.

    @Test(arguments: DecodePeers.all.map(\.name))
    func theInstalledPeerDecodesEachOfItsFormatsInAWarmSession(name: String) async throws {
        let peer = try #require(DecodePeers.named(name))
        let installed = try await Self.installed(peer)
        #expect(!installed.version.isEmpty)
        let files = try PeerFormat.allCases.filter(peer.formats.contains).map { try #require(Self.files[$0]) }
        let (timings, unreadable) = try await onOwnThread {
            let session = try installed.warmSession(.decode)
            // A batch answers one line too: the mean of its runs.
            let timings = try files.map { file in
                (kind: file.kind, single: try session.milliseconds(file: file.path),
                 batch: try session.milliseconds(file: file.path, batch: 3))
            }
            return (timings, Result { try session.milliseconds(file: "/nonexistent/peer-test.png") })
        }
        for timing in timings {
            #expect(timing.single > 0 && timing.single < 10_000, "\(name) on \(timing.kind): \(timing.single) ms")
            #expect(timing.batch > 0 && timing.batch < 10_000, "\(name) on \(timing.kind), batch of 3: \(timing.batch) ms")
        }
        // A file it cannot read is an error line, not a number.
        guard case .failure(let error) = unreadable, error is PeerUnavailable else {
            Issue.record("\(name) answered an unreadable file with \(unreadable)")
            return
        }
    }

    @Test(arguments: DecodePeers.all.filter { $0.thumbnailMethod(kind: "jpeg-baseline") != nil }.map(\.name))
    func theInstalledPeerMakesAThumbnailInAColdProcess(name: String) async throws {
        let peer = try #require(DecodePeers.named(name))
        let installed = try await Self.installed(peer)
        let file = try #require(Self.files[.jpeg]).path
        let samples = try await onOwnThread { try installed.coldSamples(.thumbnail, file: file, processes: 1) }
        #expect(samples.count == 1 && samples[0] > 0)
    }

    /// `peer` as `imago bench` finds it, or a skip with the reason it is not installed.
    private static func installed(_ peer: DecodePeer) async throws -> InstalledPeer {
        switch await onOwnThread({ PeerStatus.locate(peer).installed }) {
        case .success(let found): return found
        case .failure(let unavailable): try TestSkip.skip(unavailable.reason)
        }
    }

    @Test func aModuleThatDoesNotImportIsNotInstalled() async {
        let ghost = DecodePeer(name: "ghost", title: "Ghost", module: "imago_no_such_module",
                               versionExpression: "imago_no_such_module.__version__", formats: [.png],
                               setup: "import imago_no_such_module", decode: "pass", thumbnail: nil,
                               thumbnailMethods: [:], environment: [:], note: "")
        guard case .failure(let unavailable) = await onOwnThread({ PeerStatus.locate(ghost).installed }) else {
            Issue.record("a module that does not exist was found")
            return
        }
        #expect(unavailable.reason.hasPrefix("ghost not installed"))
    }
}
