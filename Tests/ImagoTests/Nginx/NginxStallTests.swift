import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// A server that stalls, seen through nginx: nginx proxies (unbuffered, with a 60 s upstream
    /// timeout) to the loopback test server, which sends the head and 1,000 body bytes, then
    /// nothing. The load fails with `.timedOut` after the pipeline's idle timeout, in one request
    /// (a stall is not retried: the server already had the whole timeout).
    @Suite struct NginxStallTests {
        @Test(arguments: NginxCombination.all)
        func aStallingServerTimesOutAfterTheIdleTimeoutInOneRequest(_ combination: NginxCombination) async throws {
            let image = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")
            // The upstream outlives nginx (which holds connections to it): nginx stops first.
            try await TestServer.with { upstream in
                upstream.setRoute("/stall.jpg", Route(body: image, contentType: "image/jpeg", faults: Faults(stallAfterBytes: 1_000)))
                try await NginxFixture.with([.prefix("/stalled/", .proxy(to: .url(upstream.url(for: "/"))))]) { fixture in
                    let idleTimeout = Duration.seconds(1)   // URLSession counts whole seconds
                    let pipeline = fixture.pipeline(combination, idleTimeout: idleTimeout)   // retries on: a stall must not use them
                    let started = ContinuousClock.now
                    let result = await fixture.load(pipeline, fixture.request("/stalled/stall.jpg", combination))
                    let elapsed = ContinuousClock.now - started
                    #expect(result.failure == .fetch(.timedOut), "\(combination)")
                    #expect(elapsed >= idleTimeout - .milliseconds(50), "\(combination): not before the idle timeout")
                    #expect(elapsed < idleTimeout + .seconds(4), "\(combination): soon after it")
                    #expect(pipeline.counters.snapshot.fetches == 1, "\(combination): not retried")
                    #expect(upstream.counters.requests(for: "/stall.jpg") == 1, "\(combination): one request upstream")
                    // nginx logs the request once it sees the client gone (499: closed while
                    // waiting on the upstream), with only the bytes the upstream had sent.
                    let uri = fixture.uri("/stalled/stall.jpg", combination)
                    let log = try await fixture.nginx.waitForAccessLog("\(combination) given up") { entries in
                        entries.contains { $0.requestURI == uri }
                    }.filter { $0.requestURI == uri }
                    #expect(log.count == 1, "\(combination): \(log)")
                    #expect(log.first?.completed == false, "\(combination): \(log)")
                    #expect((log.first?.bodyBytesSent ?? .max) <= 1_000, "\(combination): \(log)")
                    print("NginxStallTests \(combination): \(result) after \(elapsed); nginx logged \(log)")
                    await fixture.expectNoDownloadLeftovers(combination)
                }
            }
        }
    }
}
