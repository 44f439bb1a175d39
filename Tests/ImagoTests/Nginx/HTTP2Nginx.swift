import Foundation
import ImagoTestServer
import ImagoTestSupport
import NIOSSL
import Synchronization
import Testing
@testable import Imago

/// One nginx serving HTTPS with HTTP/2 offered, shared by every test of a suite that has the
/// ``SharedHTTP2Nginx`` trait (started once, stopped when the suite ends: a start costs a TLS
/// listener and a certificate each time). Each test makes its own transports, so connections
/// are never shared between tests, and its own query strings, so its log lines are its own.
struct HTTP2Nginx: Sendable {
    let nginx: NginxServer
    /// The loopback test server nginx proxies `/upstream/` to (unbuffered): its routes' faults
    /// (a close mid-body, a stall) reach the client as nginx passes them on, over h2 as a reset
    /// stream or a stalled one.
    let upstream: TestServer
    let certificates: TestCertificates
    /// Every pipeline's `temporaryDirectory`.
    let downloads: URL

    static let image = "png/rgba-8.png"
    /// A body that takes nginx about 16 s to send at ``slowRate`` (it is never decoded: the
    /// load reading it is cancelled mid-body).
    static let slowFile = "slow/large.bin"
    static let slowSize = 256 << 10
    static let slowRate = 16 << 10
    static let statusPath = "/status"
    static func locations(upstream: TestServer) -> [NginxLocation] {
        [.exact(statusPath, .stubStatus),
         .prefix("/slow/", .limitRate(bytesPerSecond: slowRate)),
         .prefix("/upstream/", .proxy(to: .url(upstream.url(for: "/"))))]
    }

    /// The suite's server, or why there is none (a skip for a machine without nginx or openssl).
    @TaskLocal static var current: Result<HTTP2Nginx, any Error>?

    /// The suite's server; skips the test where nginx or openssl is missing.
    static func shared() throws -> HTTP2Nginx {
        guard let current else { throw NginxError.invalidConfiguration("no SharedHTTP2Nginx trait on this suite") }
        switch current {
        case .success(let server): return server
        case .failure(TestCertificatesError.unavailable(let reason)): try TestSkip.skip("openssl unavailable: \(reason)")
        case .failure(NginxError.unavailable(let reason)): try TestSkip.skip("nginx unavailable: \(reason)")
        case .failure(let error): throw error
        }
    }

    /// A transport of its own trusting the tests' CA, speaking `httpVersion`.
    func transport(_ httpVersion: AsyncHTTPClientTransport.HTTPVersionPolicy = .automatic) throws -> AsyncHTTPClientTransport {
        let roots = AsyncHTTPClientTransport.TrustRoots.only(try NIOSSLCertificate.fromPEMBytes(certificates.authorityPEM))
        return AsyncHTTPClientTransport(configuration: .init(trustRoots: roots, httpVersion: httpVersion))
    }

    /// A pipeline over `transport` with `strategy`, no memory cache and, unless given, no
    /// retries (a retry would hide a stream that failed); `events` sees its events.
    func pipeline(_ transport: any ImageTransport, strategy: FetchStrategy = .data, retryPolicy: RetryPolicy = RetryPolicy(maxRetries: 0),
                  events: (@Sendable (PipelineEvent) -> Void)? = nil) -> ImagePipeline {
        ImagePipeline(configuration: .init(
            dependencies: .init(transport: transport, memoryCache: nil),
            network: .init(fetchStrategy: strategy, retryPolicy: retryPolicy, idleTimeout: .seconds(10),
                           temporaryDirectory: downloads),
            memory: .init(respondsToPressure: false),
            diagnostics: .init(eventHandler: events)))
    }

    /// The https URL of `path` with `query` (`?test=…`), and the URI nginx logs for it.
    func url(_ path: String, query: String) throws -> (url: URL, uri: String) {
        let uri = path + "?" + query
        return (try #require(nginx.httpsURL(for: uri)), uri)
    }

    /// nginx's entries for these URIs once every one of them is logged.
    func logged(_ uris: [String]) async throws -> [NginxAccessLogEntry] {
        try await nginx.waitForAccessLog("\(uris)") { entries in
            uris.allSatisfy { uri in entries.contains { $0.requestURI == uri } }
        }.filter { uris.contains($0.requestURI) }
    }
}

/// Starts one ``HTTP2Nginx`` (and its upstream) for the suite it is attached to and stops it
/// (removing its directory and the downloads directory) when the suite's last test is done.
struct SharedHTTP2Nginx: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        // The upstream outlives nginx (which holds connections to it): nginx stops first.
        try await TestServer.with { upstream in
            try await TemporaryDirectory.with("imago-h2-downloads") { downloads in
                let started: Result<HTTP2Nginx, any Error>
                do {
                    let certificates = try TestCertificates.shared.get()
                    let nginx = try await NginxServer.start(.init(
                        locations: HTTP2Nginx.locations(upstream: upstream),
                        files: [HTTP2Nginx.image: TestCorpus.bytes(HTTP2Nginx.image),
                                HTTP2Nginx.slowFile: [UInt8](repeating: 0x5A, count: HTTP2Nginx.slowSize)],
                        tls: NginxTLS(certificates.server)))
                    started = .success(HTTP2Nginx(nginx: nginx, upstream: upstream, certificates: certificates, downloads: downloads))
                } catch {
                    started = .failure(error)
                }
                do {
                    try await HTTP2Nginx.$current.withValue(started, operation: function)
                } catch {
                    if case .success(let server) = started { await server.nginx.stop() }
                    throw error
                }
                if case .success(let server) = started { await server.nginx.stop() }
            }
        }
    }
}

extension Trait where Self == SharedHTTP2Nginx {
    /// One nginx with HTTPS and HTTP/2 for the whole suite (``HTTP2Nginx/shared()``).
    static var sharedHTTP2Nginx: Self { SharedHTTP2Nginx() }
}
