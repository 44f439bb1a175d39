import Foundation
import ImagoTestServer
import ImagoTestSupport
import Synchronization
import Testing
@testable import Imago

/// Contract checks a transport may lack the means for (`TransportCase.Limitation`: IPv6 literal
/// hosts, sub-second idle timeouts, wire-byte accounting of encoded bodies); a transport listed
/// as lacking one skips the check, saying why.
extension TransportContract {
    /// `http://[::1]:PORT/` (skipped where the host has no IPv6 loopback).
    func ipv6LiteralURL() async throws {
        try IPv6Loopback.requireOrSkip()
        var configuration = serverConfiguration
        configuration.host = "::1"
        let server = try await TestServer.start(configuration)   // not self.server: this one listens on ::1
        server.setRoute("/six.bin", Route(body: body))
        let url = server.url(for: "/six.bin")
        let scheme = configuration.tls == nil ? "http" : "https"
        #expect(url.absoluteString == "\(scheme)://[::1]:\(server.port)/six.bin")
        var request = self.request("/six.bin", .file)
        request.url = url
        do {
            let result = try await transport.fetch(request) { _ in }
            try #expect(bytes(result) == body)
            expectNegotiated(result.head)
            // The server counts a response once its last write completed, which may be just after
            // the client has every byte (CI saw 0 here on a busy machine).
            try await server.counters.waitUntil { $0.responsesCompleted(for: "/six.bin") == 1 }
        } catch {
            Issue.record("\(error)")
        }
        try await server.shutdown()
    }

    /// 250 ms of silence times out after 250 ms, not at once and not after a second.
    func subSecondIdleTimeoutIsExact() async throws {
        server.setRoute("/stall", Route(body: body, faults: Faults(stallAfterBytes: 1000)))
        let started = ContinuousClock.now
        await expectFailure(request("/stall", idleTimeout: .milliseconds(250))) { $0 == .timedOut }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < .milliseconds(900), "rounded up to a second?")
    }

    /// Rule HTTP-3 with a server that compresses although asked for identity: the body is
    /// decoded, truncation and progress are judged on the wire bytes (Content-Length is the
    /// compressed size), and neither fails because the decoded size differs.
    func gzipAndDeflateBodiesAreDecodedAndJudgedOnWireBytes() async throws {
        for encoding in ["gzip", "deflate"] {
            let wire = try await Compressor.compress(body, encoding)
            #expect(wire.count < body.count)
            let path = "/encoded-\(encoding)"
            server.setRoute(path, Route(body: wire, faults: Faults(headers: ["Content-Encoding": encoding])))
            for strategy in FetchStrategy.storing {
                let seen = Mutex<[FetchProgress]>([])
                let result = try await transport.fetch(self.request(path, strategy)) { p in seen.withLock { $0.append(p) } }
                try #expect(bytes(result) == body, "\(encoding) \(strategy)")
                #expect(result.receivedBytes == wire.count)
                #expect(result.head.expectedLength == wire.count)
                let progress = seen.withLock { $0 }
                #expect(progress.last == FetchProgress(received: wire.count, expected: wire.count))
                #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.received <= $1.received })
            }
        }
        try #expect(leftovers() == [])
    }

    func anEncodedBodyCutShortIsATruncationOfItsWireBytes() async throws {
        let wire = try await Compressor.compress(body, "gzip")
        server.setRoute("/cut", Route(body: wire, faults: Faults(closeAfterBytes: wire.count / 2,
                                                                           headers: ["Content-Encoding": "gzip"])))
        for strategy in FetchStrategy.storing {
            await expectFailure(request("/cut", strategy)) { error in
                if case .truncated(expected: wire.count, received: let got) = error { return got < wire.count }
                return false
            }
        }
        try #expect(leftovers() == [])
    }
}
