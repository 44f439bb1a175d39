import Foundation
import ImagoTestServer
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// Plain static files from nginx, every format the corpus has: each load's pixels are the
    /// pixels of decoding the same bytes locally, and each file is fetched exactly once.
    @Suite struct NginxStaticFileTests {
        static let corpus = [
            "png/rgba-8.png", "png/palette-8-trns.png", "png/rgba-16-interlaced.png",
            "jpeg/baseline-420-q85-1600x1200.jpg", "jpeg/progressive-420-q90.jpg",
            "webp/lossy-alpha-q80.webp", "webp/lossless.webp",
        ]

        @Test(arguments: NginxCombination.all)
        func everyFormatLoadsWithThePixelsOfALocalDecode(_ combination: NginxCombination) async throws {
            let files = Dictionary(uniqueKeysWithValues: Self.corpus.map { ("files/\($0)", TestCorpus.bytes($0)) })
            try await NginxFixture.with([], files: files) { fixture in
                let pipeline = fixture.pipeline(combination)
                for file in Self.corpus {
                    let response = try await fixture.load(pipeline, fixture.request("/files/\(file)", combination)).get()
                    #expect(response.origin == .network)
                    try #expect(response.pixels == fixture.localPixels(file), "\(combination) \(file)")
                    let log = try await fixture.logged(fixture.uri("/files/\(file)", combination), finalStatus: 200)
                    #expect(log.count == 1, "\(combination) \(file): \(log)")
                    #expect(log.first?.bodyBytesSent == TestCorpus.bytes(file).count, "the whole file went out")
                    #expect(log.first?.completed == true)
                }
                #expect(pipeline.counters.snapshot.fetches == Self.corpus.count, "\(combination): one fetch per file")
                await fixture.expectNoDownloadLeftovers(combination)
                #expect(fixture.nginx.accessLog.count == Self.corpus.count, "\(combination): nothing else was requested")
            }
        }
    }
}
