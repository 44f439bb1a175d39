import Foundation
import ImagoTestServer
import XCTest
@testable import Imago

/// nginx's redirects: 301, 302, 307 and 308 each lead to the image; a redirect loop fails with
/// `tooManyRedirects` after one attempt (a loop is not transient: RETRY-1).
final class NginxRedirectTests: NginxTestCase {
    static let image = "png/rgba-8.png"
    static let statuses = [301, 302, 307, 308]

    private var locations: [NginxLocation] {
        Self.statuses.map { .exact("/moved-\($0)", .redirect(status: $0, to: "/files/\(Self.image)")) } + [
            .exact("/loop/start", .redirect(status: 302, to: "/loop/a")),
            .exact("/loop/a", .redirect(status: 302, to: "/loop/b")),
            .exact("/loop/b", .redirect(status: 302, to: "/loop/a")),
        ]
    }

    func testEachRedirectStatusIsFollowedToTheImage() async throws {
        _ = try await startNginx(locations, files: ["files/\(Self.image)": TestCorpus.bytes(Self.image)])
        try await forEachCombination { combination in
            let pipeline = pipeline(combination)
            for status in Self.statuses {
                // The redirects keep the query, so each hop of this load carries its own tag.
                let query = combination.query + "&from=\(status)"
                let response = try await load(pipeline, ImageRequest(source: .url(nginx.url(for: "/moved-\(status)" + query)))).get()
                XCTAssertEqual(response.pixels, try localPixels(Self.image), "\(combination) \(status)")
                let target = try await logged("/files/\(Self.image)" + query, finalStatus: 200)
                XCTAssertEqual(target.count, 1, "\(combination) \(status): the image once")
                let hop = nginx.accessLog.filter { $0.requestURI == "/moved-\(status)" + query }
                XCTAssertEqual(hop.map(\.status), [status], "\(combination): the redirect once")
            }
            XCTAssertEqual(pipeline.counters.snapshot.fetches, Self.statuses.count, "\(combination): one fetch per load")
            await assertNoDownloadLeftovers(combination)
        }
    }

    func testARedirectLoopFailsAfterOneAttempt() async throws {
        _ = try await startNginx(locations)
        try await forEachCombination(needing: .redirectLoops) { combination in
            let pipeline = pipeline(combination)   // retries on: a loop must not use them
            let result = await load(pipeline, request("/loop/start", combination))
            guard case .failure(.fetch(.tooManyRedirects)) = result else {
                return XCTFail("\(combination): \(result)")
            }
            XCTAssertEqual(pipeline.counters.snapshot.fetches, 1, "\(combination): one attempt")
            // nginx logs each request before it reads the next: all but the last hop are there.
            let log = nginx.accessLog.filter { $0.requestURI.hasSuffix(combination.query) }
            XCTAssertEqual(log.filter { $0.path == "/loop/start" }.count, 1, "\(combination): the loop entered once")
            let hops = log.filter { $0.path != "/loop/start" }
            XCTAssertGreaterThan(hops.count, 1, "\(combination): the loop was followed")
            XCTAssertTrue(log.allSatisfy { $0.status == 302 })
            print("\(name) \(combination): \(result), after \(hops.count) redirects")
        }
    }
}
