import Foundation
import ImagoTestServer
import ImagoTestSupport
import NIOSSL
import Testing
@testable import Imago

/// The loopback test server's HTTPS (`TestServer.Configuration.tls`): ALPN offers what it is
/// told, a client gets the protocol both sides have (the transport's head and the server's log
/// agree), no common protocol is a failed connection with no request counted, and unusable
/// certificates or an empty protocol list are a typed error at start.
@Suite struct TestServerTLSTests {
    typealias Offer = [TestServer.TLS.ApplicationProtocol]

    @Test(arguments: [
        ([.http2, .http1], AsyncHTTPClientTransport.HTTPVersionPolicy.automatic, "HTTP/2.0"),
        ([.http2, .http1], .http1Only, "HTTP/1.1"),
        ([.http1], .automatic, "HTTP/1.1"),
        ([.http2], .automatic, "HTTP/2.0"),
    ] as [(Offer, AsyncHTTPClientTransport.HTTPVersionPolicy, String)])
    func aClientGetsTheProtocolBothSidesHave(_ offer: Offer, _ policy: AsyncHTTPClientTransport.HTTPVersionPolicy,
                                             _ expected: String) async throws {
        let certificates = try ContractCertificates.get()
        let server = try await TestServer.start(.init(tls: .init(certificates.server, protocols: offer)))
        let transport = try Self.transport(certificates, policy)
        server.setRoute("/a.bin", Route(body: [1, 2, 3]))
        let result = await transport.fetchResult(FetchRequest(url: server.url(for: "/a.bin")))
        try await transport.shutdown()
        try await server.shutdown()
        #expect(server.baseURL.scheme == "https")
        #expect(try result.get().head.httpVersion == expected, "\(offer) \(policy)")
        #expect(server.counters.snapshot.requestLog(for: "/a.bin").map(\.httpVersion) == [expected])
    }

    /// HTTP/2 alone offered, HTTP/1.1 alone asked: no protocol in common, the connection closed
    /// before any request.
    @Test func noProtocolInCommonIsAFailedConnection() async throws {
        let certificates = try ContractCertificates.get()
        let server = try await TestServer.start(.init(tls: .init(certificates.server, protocols: [.http2])))
        let transport = try Self.transport(certificates, .http1Only)
        server.setRoute("/a.bin", Route(body: [1, 2, 3]))
        let result = await transport.fetchResult(FetchRequest(url: server.url(for: "/a.bin")))
        try await transport.shutdown()
        try await server.shutdown()
        guard case .transport? = result.failure else { Issue.record("expected a transport error, got \(result)"); return }
        #expect(server.counters.totalRequests == 0)
    }

    /// Over HTTPS with HTTP/1.1 a client's cancel mid-body is a TLS close_notify, which the
    /// server must read while its response is still going out (plain TCP shows the close without
    /// a read): it counts the connection closed by the client at once, not when the client's TLS
    /// close times out after 5 s.
    @Test func aCancelOverTLSWithHTTP1IsSeenAtOnce() async throws {
        let certificates = try ContractCertificates.get()
        let server = try await TestServer.start(.init(tls: .init(certificates.server, protocols: [.http1])))
        let transport = try Self.transport(certificates, .http1Only)
        let body = [UInt8](repeating: 7, count: 300_000)
        server.setRoute("/stalled.bin", Route(body: body, faults: Faults(stallAfterBytes: 50_000)))
        let request = FetchRequest(url: server.url(for: "/stalled.bin"))
        let load = Task { await transport.fetchResult(request) }
        try await server.counters.waitUntil { $0.bodyBytesSent(for: "/stalled.bin") >= 50_000 }
        load.cancel()
        #expect(await load.value.failure == .cancelled)
        var seen: (any Error)?
        do {
            try await server.counters.waitUntil(timeout: .seconds(3)) { $0.connectionsClosedByClient == 1 }
        } catch {
            seen = error
        }
        try await transport.shutdown()
        try await server.shutdown()
        #expect(seen == nil, "\(seen.map { "\($0)" } ?? "")")
    }

    @Test func unusableCertificatesOrNoProtocolsAreATypedError() async throws {
        let certificates = try ContractCertificates.get()
        let notAKey = TestCertificates.Pair(certificatePEM: certificates.server.certificatePEM, keyPEM: Array("nonsense".utf8))
        let notACertificate = TestCertificates.Pair(certificatePEM: Array("nonsense".utf8), keyPEM: certificates.server.keyPEM)
        let cases: [(TestServer.TLS, String)] = [
            (.init(notAKey), "private key"),
            (.init(notACertificate), "certificate"),
            (.init(certificates.server, protocols: []), "no application protocol"),
        ]
        for (tls, words) in cases {
            do {
                let server = try await TestServer.start(.init(tls: tls))
                try await server.shutdown()
                Issue.record("started with \(words) unusable")
            } catch let error as TestServerError {
                guard case .invalidConfiguration(let message) = error else { Issue.record("\(error)"); continue }
                #expect(message.contains(words), "\(message)")
            }
        }
    }

    private static func transport(_ certificates: TestCertificates,
                                  _ policy: AsyncHTTPClientTransport.HTTPVersionPolicy) throws -> AsyncHTTPClientTransport {
        let roots = AsyncHTTPClientTransport.TrustRoots.only(try NIOSSLCertificate.fromPEMBytes(certificates.authorityPEM))
        return AsyncHTTPClientTransport(configuration: .init(trustRoots: roots, httpVersion: policy))
    }
}
