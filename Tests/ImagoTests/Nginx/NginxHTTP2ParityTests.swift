import Foundation
import ImagoTestServer
import ImagoTestSupport
import Synchronization
import Testing
@testable import Imago

/// What HTTP/1.1 gave must hold over HTTP/2: each check runs once with `.automatic` (nginx's
/// HTTPS listener offers h2, so it is HTTP/2) and once with `.http1Only`, through nginx
/// proxying unbuffered to the loopback test server, whose faults nginx passes on (over h2 a
/// close mid-body becomes a reset stream). Over HTTP/2, every request of a check, the failed
/// ones included, rides on one connection: a failure resets its stream, not the connection.
extension TimedSuites.NginxTests.NginxHTTP2Tests {
    static let policies: [AsyncHTTPClientTransport.HTTPVersionPolicy] = [.automatic, .http1Only]
    static let body = (0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    @Test(arguments: policies)
    func progressIsMonotoneAndTheBodyWhole(_ policy: AsyncHTTPClientTransport.HTTPVersionPolicy) async throws {
        let server = try HTTP2Nginx.shared()
        let path = "/parity-\(policy)/progress.bin"
        server.upstream.setRoute(path, Route(body: Self.body))
        let transport = try server.transport(policy)
        let reports = ProgressReports()
        let url = try #require(server.nginx.httpsURL(for: "/upstream" + path))
        let result = try await transport.fetch(FetchRequest(url: url)) { reports.append($0) }
        try await transport.shutdown()
        guard case .data(let data) = result.body else { Issue.record("\(policy): \(result.body)"); return }
        #expect([UInt8](data) == Self.body, "\(policy)")
        #expect(result.head.httpVersion == Self.expectedVersion(policy))
        let received = reports.all.map(\.received)
        #expect(received == received.sorted() && received.last == Self.body.count, "\(policy): \(received)")
        #expect(reports.all.allSatisfy { $0.expected == Self.body.count }, "\(policy)")
    }

    /// A close mid-body upstream reaches the client as a truncation (over h2, a reset stream),
    /// which the pipeline retries: twice cut short, then whole, on one connection over h2.
    @Test(arguments: policies)
    func aBodyCutShortIsRetried(_ policy: AsyncHTTPClientTransport.HTTPVersionPolicy) async throws {
        let server = try HTTP2Nginx.shared()
        let image = "jpeg/baseline-420-q85-1600x1200.jpg"
        let path = "/parity-\(policy)/retried.jpg"
        server.upstream.setRoute(path, Route(body: TestCorpus.bytes(image), contentType: "image/jpeg")
            .failFirst(2, with: Faults(closeAfterBytes: 2_000)))
        let transport = try server.transport(policy)
        let pipeline = server.pipeline(transport, retryPolicy: NginxFixture.quickRetries)
        let url = try #require(server.nginx.httpsURL(for: "/upstream" + path))
        let result = await NginxFixture.load(pipeline, ImageRequest(source: .url(url)))
        try await transport.shutdown()
        try #expect(result.get().pixels == ImageDecoder.decode(TestCorpus.bytes(image)).pixels, "\(policy)")
        #expect(pipeline.counters.snapshot.fetches == 3, "\(policy): two retries")
        let log = try await server.nginx.waitForAccessLog("3 requests") { $0.filter { $0.path == "/upstream" + path }.count == 3 }
            .filter { $0.path == "/upstream" + path }
        let size = TestCorpus.bytes(image).count
        #expect(log.map { $0.bodyBytesSent < size } == [true, true, false], "\(policy): cut short twice, then whole: \(log)")
        expectOneConnectionOverHTTP2(log, policy)
    }

    /// A reset stream mid-body is `.truncated`, an oversize body `.tooLarge` at the head; the
    /// next fetch still succeeds (over h2, on the same connection).
    @Test(arguments: policies)
    func truncationAndTheSizeLimitAsOverHTTP1(_ policy: AsyncHTTPClientTransport.HTTPVersionPolicy) async throws {
        let server = try HTTP2Nginx.shared()
        let (cut, whole) = ("/parity-\(policy)/cut.bin", "/parity-\(policy)/whole.bin")
        server.upstream.setRoute(cut, Route(body: Self.body, faults: Faults(closeAfterBytes: 2_000)))
        server.upstream.setRoute(whole, Route(body: Self.body))
        let transport = try server.transport(policy)
        let cutURL = try #require(server.nginx.httpsURL(for: "/upstream" + cut))
        let wholeURL = try #require(server.nginx.httpsURL(for: "/upstream" + whole))
        let truncated = await transport.fetchResult(FetchRequest(url: cutURL))
        let tooLarge = await transport.fetchResult(FetchRequest(url: wholeURL, maxResponseSize: Self.body.count - 1))
        let fine = await transport.fetchResult(FetchRequest(url: wholeURL))
        try await transport.shutdown()
        guard case .truncated(let expected, let received)? = truncated.failure else {
            Issue.record("\(policy): expected a truncation, got \(truncated)"); return
        }
        #expect(expected == Self.body.count && received < expected, "\(policy): \(received) of \(expected)")
        #expect(tooLarge.failure == .tooLarge(limit: Self.body.count - 1), "\(policy): \(tooLarge)")
        #expect(fine.failure == nil, "\(policy): \(fine)")
        let log = try await server.nginx.waitForAccessLog("3 requests") { entries in
            entries.filter { $0.path == "/upstream" + cut }.count == 1 && entries.filter { $0.path == "/upstream" + whole }.count == 2
        }.filter { $0.path == "/upstream" + cut || $0.path == "/upstream" + whole }
        expectOneConnectionOverHTTP2(log, policy)
    }

    /// A stalled body times out after the idle timeout; the next fetch (a file nginx serves
    /// itself) succeeds. Over h2 nginx sees the stream reset at once and logs both on one
    /// connection; over HTTP/1.1 it notices the closed connection only when it next writes to
    /// it, so only the second request's line is waited for.
    @Test(arguments: policies)
    func aStallTimesOutAsOverHTTP1(_ policy: AsyncHTTPClientTransport.HTTPVersionPolicy) async throws {
        let server = try HTTP2Nginx.shared()
        let stalled = "/upstream/parity-\(policy)/stalled.bin"
        // The gate ends the stall once the fetch has timed out: over HTTP/1.1 nginx, stuck on the
        // upstream, would otherwise not answer the client's TLS close_notify, and shutting the
        // transport down would wait out NIOSSL's 5 s close timeout.
        let gate = Gate()
        defer { gate.open() }
        server.upstream.setRoute(String(stalled.dropFirst("/upstream".count)),
                                 Route(body: Self.body, faults: Faults(stallAfterBytes: 1_000, gate: gate)))
        let after = try server.url("/\(HTTP2Nginx.image)", query: "test=after-stall-\(policy)")
        let transport = try server.transport(policy)
        let idleTimeout = Duration.milliseconds(250)
        let started = ContinuousClock.now
        let timedOut = await transport.fetchResult(FetchRequest(url: try #require(server.nginx.httpsURL(for: stalled)),
                                                                idleTimeout: idleTimeout))
        let elapsed = ContinuousClock.now - started
        gate.open()
        let fine = await transport.fetchResult(FetchRequest(url: after.url))
        try await transport.shutdown()
        #expect(timedOut.failure == .timedOut, "\(policy): \(timedOut)")
        #expect(elapsed >= idleTimeout - .milliseconds(50) && elapsed < idleTimeout + .seconds(4), "\(policy): after \(elapsed)")
        #expect(fine.failure == nil, "\(policy): \(fine)")
        let paths = policy == .automatic ? [stalled, after.uri] : [after.uri]
        let log = try await server.nginx.waitForAccessLog("\(paths)") { entries in
            paths.allSatisfy { path in entries.contains { $0.requestURI == path } }
        }.filter { paths.contains($0.requestURI) }
        expectOneConnectionOverHTTP2(log, policy)
    }

    static func expectedVersion(_ policy: AsyncHTTPClientTransport.HTTPVersionPolicy) -> String {
        policy == .automatic ? "HTTP/2.0" : "HTTP/1.1"
    }

    /// Every line came over the policy's protocol; over HTTP/2, all on one connection.
    private func expectOneConnectionOverHTTP2(_ log: [NginxAccessLogEntry], _ policy: AsyncHTTPClientTransport.HTTPVersionPolicy,
                                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(log.allSatisfy { $0.serverProtocol == Self.expectedVersion(policy) }, "\(policy): \(log.map(\.serverProtocol))",
                sourceLocation: sourceLocation)
        if policy == .automatic {
            #expect(Set(log.map(\.connection)).count == 1, "one connection: \(log.map(\.connection))", sourceLocation: sourceLocation)
        }
    }
}
