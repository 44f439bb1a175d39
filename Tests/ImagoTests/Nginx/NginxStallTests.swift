import Foundation
import ImagoTestServer
import XCTest
@testable import Imago

/// A server that stalls, seen through nginx: nginx proxies (unbuffered, with a 60 s upstream
/// timeout) to the loopback test server, which sends the head and 1,000 body bytes, then
/// nothing. The load fails with `.timedOut` after the pipeline's idle timeout, in one request
/// (a stall is not retried: the server already had the whole timeout).
final class NginxStallTests: NginxTestCase {
    private var upstream: TestServer?

    override func tearDown() async throws {
        try await super.tearDown()   // nginx first: it holds connections to the upstream
        try await upstream?.shutdown()
    }

    func testAStallingServerTimesOutAfterTheIdleTimeoutInOneRequest() async throws {
        let image = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")
        let upstream = try await TestServer.start()
        self.upstream = upstream
        upstream.setRoute("/stall.jpg", Route(body: image, contentType: "image/jpeg", faults: Faults(stallAfterBytes: 1_000)))
        _ = try await startNginx([.prefix("/stalled/", .proxy(to: .url(upstream.url(for: "/"))))])
        let idleTimeout = Duration.seconds(1)   // URLSession counts whole seconds
        try await forEachCombination { combination in
            let upstreamBefore = upstream.counters.requests(for: "/stall.jpg")
            let pipeline = pipeline(combination, idleTimeout: idleTimeout)   // retries on: a stall must not use them
            let started = ContinuousClock.now
            let result = await load(pipeline, request("/stalled/stall.jpg", combination))
            let elapsed = ContinuousClock.now - started
            XCTAssertEqual(result.failure, .fetch(.timedOut), "\(combination)")
            XCTAssertGreaterThanOrEqual(elapsed, idleTimeout - .milliseconds(50), "\(combination): not before the idle timeout")
            XCTAssertLessThan(elapsed, idleTimeout + .seconds(4), "\(combination): soon after it")
            XCTAssertEqual(pipeline.counters.snapshot.fetches, 1, "\(combination): not retried")
            XCTAssertEqual(upstream.counters.requests(for: "/stall.jpg") - upstreamBefore, 1, "\(combination): one request upstream")
            // nginx logs the request once it sees the client gone (499: closed while waiting on
            // the upstream), with only the bytes the upstream had sent.
            let log = try await nginx.waitForAccessLog("\(combination) given up") { entries in
                entries.contains { $0.requestURI == self.uri("/stalled/stall.jpg", combination) }
            }.filter { $0.requestURI == uri("/stalled/stall.jpg", combination) }
            XCTAssertEqual(log.count, 1, "\(combination): \(log)")
            XCTAssertEqual(log.first?.completed, false, "\(combination): \(log)")
            XCTAssertLessThanOrEqual(log.first?.bodyBytesSent ?? .max, 1_000, "\(combination): \(log)")
            print("\(name) \(combination): \(result) after \(elapsed); nginx logged \(log)")
            await assertNoDownloadLeftovers(combination)
        }
    }
}
