import NIOCore
import NIOSSL

extension TestServer {
    /// HTTPS for a ``TestServer`` (``Configuration/tls``): a certificate and key, and the
    /// protocols offered by ALPN. With `h2` offered, a client that picks it gets HTTP/2, each
    /// stream served as one HTTP/1 exchange by the same routes, faults, gates and counters.
    ///
    /// ```swift
    /// let certificates = try TestCertificates.shared.get()
    /// let server = try await TestServer.start(.init(tls: .init(certificates.server)))
    /// // server.baseURL is https://127.0.0.1:PORT; trust certificates.authorityPEM in the client
    /// ```
    ///
    /// What a fault means on an HTTP/2 stream: ``Faults/closeAfterBytes`` resets the stream
    /// (RST_STREAM, `CANCEL`) after that many body bytes, the connection and its other streams
    /// going on; a stall, a gate, pacing and latency hold or slow that stream only, and HTTP/2
    /// flow control (the client's window) paces each stream's body. A client's RST_STREAM mid-
    /// response counts in ``CounterSnapshot/streamsResetByClient``.
    public struct TLS: Sendable, Hashable {
        /// A protocol the server offers by ALPN.
        public enum ApplicationProtocol: String, Sendable, Hashable, CaseIterable {
            /// HTTP/2 (`h2`).
            case http2 = "h2"
            /// HTTP/1.1 (`http/1.1`).
            case http1 = "http/1.1"
        }

        /// The server's certificate (chain, PEM) and private key, e.g. ``TestCertificates/server``.
        public var pair: TestCertificates.Pair
        /// What ALPN offers, in the server's order of preference. Default `[.http2, .http1]`: a
        /// client that offers `h2` gets HTTP/2, one pinned to HTTP/1.1 gets that. A client that
        /// negotiates no protocol at all gets HTTP/1.1 if ``ApplicationProtocol/http1`` is
        /// offered, else its connection is closed.
        public var protocols: [ApplicationProtocol]

        /// HTTPS with `pair`, offering `protocols` (default `[.http2, .http1]`).
        public init(_ pair: TestCertificates.Pair, protocols: [ApplicationProtocol] = [.http2, .http1]) {
            self.pair = pair
            self.protocols = protocols
        }

        /// The server side's TLS context; throws ``TestServerError/invalidConfiguration(_:)``
        /// for an unreadable certificate or key, or no protocol to offer.
        func makeContext() throws(TestServerError) -> NIOSSLContext {
            guard !protocols.isEmpty else { throw .invalidConfiguration("TLS offers no application protocol") }
            let chain: [NIOSSLCertificate]
            let key: NIOSSLPrivateKey
            do {
                chain = try NIOSSLCertificate.fromPEMBytes(pair.certificatePEM)
            } catch {
                throw .invalidConfiguration("TLS certificate is not PEM: \(error)")
            }
            guard !chain.isEmpty else { throw .invalidConfiguration("TLS certificate PEM holds no certificate") }
            do {
                key = try NIOSSLPrivateKey(bytes: pair.keyPEM, format: .pem)
            } catch {
                throw .invalidConfiguration("TLS private key is not an unencrypted PEM key: \(error)")
            }
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            configuration.applicationProtocols = protocols.map(\.rawValue)
            // A test server does not wait for a client's close_notify at shutdown: NIOSSL's
            // default would hold a shutdown up to 5 s for a client that went quiet.
            configuration.shutdownTimeout = .milliseconds(100)
            do {
                return try NIOSSLContext(configuration: configuration)
            } catch {
                throw .invalidConfiguration("TLS certificate and key do not make a server context: \(error)")
            }
        }
    }
}
