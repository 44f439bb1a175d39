import Foundation
import ImagoTestSupport
import NIOSSL
import Testing
@testable import Imago

/// One transport the transport contract and the nginx integration tests run against, and what
/// it cannot do. Parameterised tests take it (or an `NginxCombination` of it) as their argument.
struct TransportCase: Sendable, CustomTestStringConvertible {
    /// A behaviour some transports lack; a test that needs it skips that transport (the skip
    /// says why) and runs in full for every other.
    enum Limitation: Hashable, Sendable {
        /// Cannot request a URL whose host is an IPv6 literal (`http://[::1]:PORT/...`).
        case ipv6LiteralHosts
        /// Does not undo a Content-Encoding that the server applies whatever the request
        /// accepted (nginx's `gzip_static always`).
        case contentDecoding
        /// Does not count an encoded body's wire bytes: progress, `receivedBytes` and truncation
        /// are judged on the bytes the server sent, not on the decoded ones.
        case wireByteAccounting
        /// Cannot time out after a fraction of a second: idle timeouts are whole seconds.
        case subSecondIdleTimeouts
        /// Follows a redirect loop against nginx to its limit without crashing the process.
        case redirectLoops
        /// Can trust a private CA (``TransportCase/makeTrusting``), so https against the tests'
        /// own certificates can succeed.
        case privateTrustRoots
        /// Speaks HTTP/2 (negotiated by ALPN over https against the tests' own CA), so the
        /// transport contract runs over HTTP/2 as well as HTTP/1.1.
        case http2
    }

    /// A transport of a test's own, with what ends it.
    struct Owned: Sendable {
        let transport: any ImageTransport
        /// Releases the transport's connections and threads (nothing for URLSession's).
        let shutdown: @Sendable () async throws -> Void
    }

    let name: String
    /// The transport a pipeline gets: the shared one where the transport has it, as the
    /// pipeline's default uses it (nothing to shut down).
    let make: @Sendable () -> any ImageTransport
    /// A fresh transport for the contract checks, which watch connections and must not share a
    /// pool with another check.
    let makeOwned: @Sendable () -> Owned
    /// What this transport cannot do, with the reason a skip gives. Default none.
    var limitations: [Limitation: String] = [:]
    /// A fresh transport trusting only the CA certificates in the PEM bytes given, nil where
    /// the transport cannot (see ``Limitation/privateTrustRoots``). Default nil.
    var makeTrusting: (@Sendable (_ authorityPEM: [UInt8]) throws -> Owned)? = nil

    var testDescription: String { name }

    /// The shortest idle timeout the transport keeps exactly: 250 ms, or a second where it
    /// counts whole seconds.
    var shortestIdleTimeout: Duration { limitations[.subSecondIdleTimeouts] == nil ? .milliseconds(250) : .seconds(1) }

    /// Skips the running test case, saying why, when this transport lacks `capability`.
    func require(_ capability: Limitation) throws {
        if let reason = limitations[capability] { try TestSkip.skip("\(name): \(reason)") }
    }
}

enum TestTransports {
    /// Every transport the contract and the nginx tests run (the nginx tests each with every
    /// fetch strategy). Adding one here runs all of them against it.
    static let all: [TransportCase] = [
        TransportCase(name: "AsyncHTTPClient", make: { AsyncHTTPClientTransport.shared }, makeOwned: {
            let transport = AsyncHTTPClientTransport()
            return .init(transport: transport, shutdown: { try await transport.shutdown() })
        }, makeTrusting: { authorityPEM in
            let roots = AsyncHTTPClientTransport.TrustRoots.only(try NIOSSLCertificate.fromPEMBytes(authorityPEM))
            let transport = AsyncHTTPClientTransport(configuration: .init(trustRoots: roots))
            return .init(transport: transport, shutdown: { try await transport.shutdown() })
        }),
        TransportCase(name: "URLSession", make: { URLSessionTransport() },
                      makeOwned: { .init(transport: URLSessionTransport(), shutdown: {}) },
                      limitations: [
            .ipv6LiteralHosts: "swift-corelibs-foundation's URLSession refuses http://[::1]:PORT/ URLs with "
                + "NSURLErrorDomain -1000 (bad URL) before sending a request",
            .subSecondIdleTimeouts: "corelibs truncates fractional timeouts, so the transport rounds up to whole "
                + "seconds (0.25 s times out after 1 s)",
            .wireByteAccounting: "libcurl undoes the Content-Encoding before the delegate sees any byte, so progress "
                + "and receivedBytes count decoded bytes against the wire Content-Length, and a cut-short encoded "
                + "body surfaces as a transport error rather than `.truncated`",
            // First seen under ThreadSanitizer only; since then in plain debug runs on a busy
            // machine too (twice in two runs of the nginx suites). The transport contract's own
            // redirect-loop check (against the loopback server) still runs for URLSession.
            .redirectLoops: "swift-corelibs-foundation's URLSession can trap in HTTPURLProtocol (\"Received "
                + "callback for HTTP redirection, but we're not waiting for it\") on a redirect loop against nginx, "
                + "after the load has failed, killing the test process",
            .privateTrustRoots: "FoundationNetworking's URLSession on Linux verifies https against the system's trust "
                + "store only (no server-trust challenge, libcurl's CA file set by corelibs itself): it cannot trust "
                + "the tests' private CA",
            .http2: "FoundationNetworking's URLSession on Linux has no HTTP/2 (see FetchingAndStreaming.md), and it "
                + "could not trust the test server's private CA to negotiate it: the contract runs for it over HTTP/1.1 only",
        ]),
    ]

    /// Every run of the transport contract: each transport over plain HTTP/1.1, and each that
    /// speaks HTTP/2 and trusts a private CA again over HTTPS with HTTP/2 (the test server
    /// offering `h2` by ALPN). URLSession has no HTTP/2 run (its ``TransportCase/Limitation/http2``).
    static let contractRuns: [ContractRun] = all.flatMap { transport in
        [ContractRun(transport: transport, wire: .http1)]
            + (transport.limitations[.http2] == nil && transport.makeTrusting != nil
                ? [ContractRun(transport: transport, wire: .http2)] : [])
    }

    /// The HTTP/2 runs alone, for the checks that only HTTP/2 has (streams sharing a connection).
    static let http2Runs: [ContractRun] = contractRuns.filter { $0.wire == .http2 }
}

/// The protocol a transport contract run speaks to the loopback test server.
enum WireProtocol: String, Sendable {
    /// Plain http, HTTP/1.1: one fetch per connection at a time.
    case http1 = "HTTP/1.1"
    /// https with `h2` negotiated by ALPN: fetches share a connection, each on a stream.
    case http2 = "HTTP/2.0"
}

/// One transport over one protocol: the argument of every transport contract test.
struct ContractRun: Sendable, CustomTestStringConvertible {
    let transport: TransportCase
    let wire: WireProtocol

    /// The transport's name, with "over HTTP/2" for an HTTP/2 run (HTTP/1.1 runs keep the bare
    /// name they always had).
    var testDescription: String { wire == .http1 ? transport.name : "\(transport.name) over HTTP/2" }
}
