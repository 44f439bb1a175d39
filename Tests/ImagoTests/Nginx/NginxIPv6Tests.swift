import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// nginx's `[::1]` listener: an image at `http://[::1]:PORT/...` loads like one on 127.0.0.1.
    @Suite(.ipv6Loopback) struct NginxIPv6Tests {
        static let image = "webp/lossy-alpha-q80.webp"

        @Test(arguments: NginxCombination.all)
        func anImageLoadsOverIPv6Loopback(_ combination: NginxCombination) async throws {
            try combination.require(.ipv6LiteralHosts)
            try await NginxFixture.with([], files: ["files/\(Self.image)": TestCorpus.bytes(Self.image)]) { fixture in
                let uri = fixture.uri("/files/\(Self.image)", combination)
                let url = try #require(fixture.nginx.ipv6URL(for: uri), "nginx listens on [::1] where the machine has it")
                let pipeline = fixture.pipeline(combination)
                let response = try await fixture.load(pipeline, ImageRequest(source: .url(url))).get()
                try #expect(response.pixels == fixture.localPixels(Self.image), "\(combination)")
                let log = try await fixture.logged(uri, finalStatus: 200)
                #expect(log.count == 1, "\(combination): \(log)")
                #expect(log.first?.serverAddress == "::1", "\(combination): came in on the IPv6 listener")
                #expect(pipeline.counters.snapshot.fetches == 1)
                await fixture.expectNoDownloadLeftovers(combination)
            }
        }
    }
}
