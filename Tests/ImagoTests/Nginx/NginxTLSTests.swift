import Foundation
import ImagoTestServer
import ImagoTestSupport
import NIOSSL
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// HTTPS from nginx (`ssl`, HTTP/2 offered beside HTTP/1.1) with certificates the test
    /// process makes with openssl: every strategy loads through a transport trusting the
    /// private CA, and an unknown CA, an expired certificate and one for another host name each
    /// fail with `.tls` after exactly one connection (nginx's `stub_status` counts them; a
    /// broken handshake leaves no access-log line), at once and never retried.
    @Suite struct NginxTLSTests {
        static let image = "png/rgba-8.png"
        static let statusPath = "/status"
        static let locations: [NginxLocation] = [.exact(statusPath, .stubStatus)]

        /// The certificate a server presents, and whether the client trusts the private CA.
        enum BadCertificate: String, CaseIterable, Sendable, CustomTestStringConvertible {
            /// The good certificate, to a client that trusts only the system's store.
            case unknownAuthority
            /// Signed by the trusted CA, but expired.
            case expired
            /// Signed by the trusted CA, but for another host name than 127.0.0.1.
            case wrongHostName

            var testDescription: String { rawValue }

            func pair(_ certificates: TestCertificates) -> TestCertificates.Pair {
                switch self {
                case .unknownAuthority: certificates.server
                case .expired: certificates.expired
                case .wrongHostName: certificates.wrongName
                }
            }

            /// What the reason says where the transport can trust the private CA (so each case
            /// fails for its own cause). An expired certificate and an unknown CA are one
            /// BoringSSL code, which the reason names as such (see `TLSFailureReason`).
            var reasonFragment: String {
                switch self {
                case .unknownAuthority, .expired: "certificate not trusted"
                case .wrongHostName: "wrong host name"
                }
            }
        }

        @Test(arguments: NginxCombination.all)
        func everyStrategyLoadsOverHTTPSTrustingThePrivateCA(_ combination: NginxCombination) async throws {
            try combination.require(.privateTrustRoots)
            let certificates = try TestCertificates.sharedOrSkip()
            let makeTrusting = try #require(combination.transport.makeTrusting)
            try await NginxFixture.with(Self.locations, files: [Self.image: TestCorpus.bytes(Self.image)],
                                        tls: NginxTLS(certificates.server)) { fixture in
                let owned = try makeTrusting(certificates.authorityPEM)
                let uri = fixture.uri("/\(Self.image)", combination)
                let url = try #require(fixture.nginx.httpsURL(for: uri))
                let result = await fixture.load(fixture.pipeline(combination, transport: owned.transport),
                                                ImageRequest(source: .url(url)))
                try await owned.shutdown()
                let response = try result.get()
                try #expect(response.pixels == fixture.localPixels(Self.image), "\(combination)")
                let log = try await fixture.logged(uri, finalStatus: 200)
                #expect(log.map(\.status) == [200], "\(combination): one request")
                await fixture.expectNoDownloadLeftovers(combination)
            }
        }

        /// `.systemAnd`: the system's store with the private CA added also verifies nginx.
        @Test func theSystemStorePlusThePrivateCALoads() async throws {
            let certificates = try TestCertificates.sharedOrSkip()
            let ahc = try #require(TestTransports.all.first { $0.name == "AsyncHTTPClient" })
            let combination = NginxCombination(transport: ahc, strategy: .data)
            try await NginxFixture.with(Self.locations, files: [Self.image: TestCorpus.bytes(Self.image)],
                                        tls: NginxTLS(certificates.server)) { fixture in
                let roots = AsyncHTTPClientTransport.TrustRoots.systemAnd(try NIOSSLCertificate.fromPEMBytes(certificates.authorityPEM))
                let transport = AsyncHTTPClientTransport(configuration: .init(trustRoots: roots))
                let url = try #require(fixture.nginx.httpsURL(for: fixture.uri("/\(Self.image)", combination)))
                let result = await fixture.load(fixture.pipeline(combination, transport: transport), ImageRequest(source: .url(url)))
                try await transport.shutdown()
                try #expect(result.get().pixels == fixture.localPixels(Self.image))
            }
        }

        @Test(arguments: TestTransports.all, BadCertificate.allCases)
        func aBadCertificateFailsOnceAtOnceWithATLSError(_ transport: TransportCase, _ bad: BadCertificate) async throws {
            let certificates = try TestCertificates.sharedOrSkip()
            try await NginxFixture.with(Self.locations, files: [Self.image: TestCorpus.bytes(Self.image)],
                                        tls: NginxTLS(bad.pair(certificates))) { fixture in
                let combination = NginxCombination(transport: transport, strategy: .data)
                // Where the transport can, it trusts the private CA, so only the certificate's
                // own fault is left; the unknown-CA case always uses the system's store.
                let owned = bad == .unknownAuthority ? nil : try transport.makeTrusting?(certificates.authorityPEM)
                // quickRetries: a retry, were the failure taken for a transient one, would come
                // within 20 ms and be counted below.
                let pipeline = fixture.pipeline(combination, transport: owned?.transport)
                let url = try #require(fixture.nginx.httpsURL(for: fixture.uri("/\(Self.image)", combination)))
                let port = try #require(fixture.nginx.httpsPort)

                let before = try fixture.nginx.connectionsAccepted(statusPath: Self.statusPath)
                let start = ContinuousClock.now
                let result = await fixture.load(pipeline, ImageRequest(source: .url(url)))
                let elapsed = ContinuousClock.now - start
                let after = try fixture.nginx.connectionsAccepted(statusPath: Self.statusPath)
                try await owned?.shutdown()

                guard case .fetch(.tls(let reason))? = result.failure else {
                    Issue.record("\(transport.name)/\(bad): expected a TLS failure, got \(result)")
                    return
                }
                #expect(after - before - 1 == 1, "\(transport.name)/\(bad): one connection, no retry")
                #expect(pipeline.counters.snapshot.fetches == 1, "\(transport.name)/\(bad)")
                #expect(!fixture.nginx.accessLog.contains { $0.path == "/\(Self.image)" }, "no request got through")
                #expect(elapsed < .seconds(3), "\(transport.name)/\(bad): failed after \(elapsed), not at once")
                #expect(!FetchError.tls(reason).isTransient)
                #expect(reason.contains("127.0.0.1:\(port)"), "\(transport.name)/\(bad): names the server: \(reason)")
                #expect(!reason.contains("Error Domain="), "\(transport.name)/\(bad): readable: \(reason)")
                let fragment = owned == nil ? BadCertificate.unknownAuthority.reasonFragment : bad.reasonFragment
                #expect(reason.contains(fragment), "\(transport.name)/\(bad): \(reason)")
            }
        }
    }
}
