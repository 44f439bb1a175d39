import Foundation
import ImagoTestServer
import XCTest
@testable import Imago

/// Plain static files from nginx, every format the corpus has: each load's pixels are the
/// pixels of decoding the same bytes locally, and each file is fetched exactly once.
final class NginxStaticFileTests: NginxTestCase {
    static let corpus = [
        "png/rgba-8.png", "png/palette-8-trns.png", "png/rgba-16-interlaced.png",
        "jpeg/baseline-420-q85-1600x1200.jpg", "jpeg/progressive-420-q90.jpg",
        "webp/lossy-alpha-q80.webp", "webp/lossless.webp",
    ]

    func testEveryFormatLoadsWithThePixelsOfALocalDecode() async throws {
        let files = Dictionary(uniqueKeysWithValues: Self.corpus.map { ("files/\($0)", TestCorpus.bytes($0)) })
        let nginx = try await startNginx([], files: files)
        try await forEachCombination { combination in
            let pipeline = pipeline(combination)
            for file in Self.corpus {
                let response = try await load(pipeline, request("/files/\(file)", combination)).get()
                XCTAssertEqual(response.origin, .network)
                XCTAssertEqual(response.pixels, try localPixels(file), "\(combination) \(file)")
                let log = try await logged(uri("/files/\(file)", combination), finalStatus: 200)
                XCTAssertEqual(log.count, 1, "\(combination) \(file): \(log)")
                XCTAssertEqual(log.first?.bodyBytesSent, TestCorpus.bytes(file).count, "the whole file went out")
                XCTAssertEqual(log.first?.completed, true)
            }
            XCTAssertEqual(pipeline.counters.snapshot.fetches, Self.corpus.count, "\(combination): one fetch per file")
            await assertNoDownloadLeftovers(combination)
        }
        XCTAssertEqual(nginx.accessLog.count, Self.corpus.count * FetchStrategy.allCases.count * NginxTransports.all.count)
    }
}
