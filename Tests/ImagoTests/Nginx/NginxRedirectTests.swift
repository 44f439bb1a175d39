import Foundation
import ImagoTestServer
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// nginx's redirects: 301, 302, 307 and 308 each lead to the image; a redirect loop fails
    /// with `tooManyRedirects` after one attempt (a loop is not transient: RETRY-1).
    @Suite struct NginxRedirectTests {
        static let image = "png/rgba-8.png"
        static let statuses = [301, 302, 307, 308]

        private static var locations: [NginxLocation] {
            statuses.map { .exact("/moved-\($0)", .redirect(status: $0, to: "/files/\(image)")) } + [
                .exact("/loop/start", .redirect(status: 302, to: "/loop/a")),
                .exact("/loop/a", .redirect(status: 302, to: "/loop/b")),
                .exact("/loop/b", .redirect(status: 302, to: "/loop/a")),
            ]
        }

        @Test(arguments: NginxCombination.all)
        func eachRedirectStatusIsFollowedToTheImage(_ combination: NginxCombination) async throws {
            try await NginxFixture.with(Self.locations, files: ["files/\(Self.image)": TestCorpus.bytes(Self.image)]) { fixture in
                let nginx = fixture.nginx
                let pipeline = fixture.pipeline(combination)
                for status in Self.statuses {
                    // The redirects keep the query, so each hop of this load carries its own tag.
                    let query = combination.query + "&from=\(status)"
                    let response = try await fixture.load(pipeline, ImageRequest(source: .url(nginx.url(for: "/moved-\(status)" + query)))).get()
                    try #expect(response.pixels == fixture.localPixels(Self.image), "\(combination) \(status)")
                    let target = try await fixture.logged("/files/\(Self.image)" + query, finalStatus: 200)
                    #expect(target.count == 1, "\(combination) \(status): the image once")
                    let hop = nginx.accessLog.filter { $0.requestURI == "/moved-\(status)" + query }
                    #expect(hop.map(\.status) == [status], "\(combination): the redirect once")
                }
                #expect(pipeline.counters.snapshot.fetches == Self.statuses.count, "\(combination): one fetch per load")
                await fixture.expectNoDownloadLeftovers(combination)
            }
        }

        @Test(arguments: NginxCombination.all)
        func aRedirectLoopFailsAfterOneAttempt(_ combination: NginxCombination) async throws {
            try combination.require(.redirectLoops)
            try await NginxFixture.with(Self.locations) { fixture in
                let pipeline = fixture.pipeline(combination)   // retries on: a loop must not use them
                let result = await fixture.load(pipeline, fixture.request("/loop/start", combination))
                guard case .failure(.fetch(.tooManyRedirects)) = result else {
                    Issue.record("\(combination): \(result)"); return
                }
                #expect(pipeline.counters.snapshot.fetches == 1, "\(combination): one attempt")
                // Every client asks for /loop/b: a client that detects cycles stops at b's
                // redirect back to a, one that counts hops goes on. nginx logs a request when
                // it has sent the response, so the client can have failed before b's line is
                // written: wait for it (under load the log read at once held start and a alone).
                _ = try await fixture.logged("/loop/b" + combination.query, atLeast: 1)
                let log = fixture.nginx.accessLog.filter { $0.requestURI.hasSuffix(combination.query) }
                #expect(log.filter { $0.path == "/loop/start" }.count == 1, "\(combination): the loop entered once")
                let hops = log.filter { $0.path != "/loop/start" }
                #expect(Set(hops.map(\.path)) == ["/loop/a", "/loop/b"], "\(combination): the loop was followed")
                #expect(log.allSatisfy { $0.status == 302 })
                print("NginxRedirectTests \(combination): \(result), after at least \(hops.count) redirects")
            }
        }
    }
}
