import Foundation
import ImagoTestServer
import XCTest
@testable import Imago

/// nginx's `[::1]` listener: an image at `http://[::1]:PORT/...` loads like one on 127.0.0.1.
final class NginxIPv6Tests: NginxTestCase {
    static let image = "webp/lossy-alpha-q80.webp"

    func testAnImageLoadsOverIPv6Loopback() async throws {
        let nginx = try await startNginx([], files: ["files/\(Self.image)": TestCorpus.bytes(Self.image)])
        guard nginx.ipv6BaseURL != nil else {
            print("\(name) skipped: this machine has no IPv6 loopback")
            throw XCTSkip("no IPv6 loopback: nginx listens on 127.0.0.1 only")
        }
        try await forEachCombination(needing: .ipv6LiteralHosts) { combination in
            let uri = uri("/files/\(Self.image)", combination)
            let url = try XCTUnwrap(nginx.ipv6URL(for: uri))
            let pipeline = pipeline(combination)
            let response = try await load(pipeline, ImageRequest(source: .url(url))).get()
            XCTAssertEqual(response.pixels, try localPixels(Self.image), "\(combination)")
            let log = try await logged(uri, finalStatus: 200)
            XCTAssertEqual(log.count, 1, "\(combination): \(log)")
            XCTAssertEqual(log.first?.serverAddress, "::1", "\(combination): came in on the IPv6 listener")
            XCTAssertEqual(pipeline.counters.snapshot.fetches, 1)
            await assertNoDownloadLeftovers(combination)
        }
    }
}
