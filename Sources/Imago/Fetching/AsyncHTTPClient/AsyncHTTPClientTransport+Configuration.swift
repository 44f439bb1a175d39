import AsyncHTTPClient
import NIOCore
import NIOSSL

extension AsyncHTTPClientTransport {
    /// How an `AsyncHTTPClientTransport` connects. Every knob states its default.
    public struct Configuration: Sendable {
        /// Redirects followed before a fetch fails with `.tooManyRedirects(limit:)`; a redirect
        /// back to a URL already visited fails at once (a cycle never ends on its own). Default 5.
        public var maxRedirects: Int
        /// HTTP/1.1 connections kept per host (a soft limit: requests beyond it queue for a
        /// connection). Default 6, like `URLSessionTransport` and browsers. An HTTP/2 host gets one
        /// connection (per event loop at most) and carries up to the server's stream limit on it.
        public var maxConnectionsPerHost: Int
        /// Time to establish a connection (TCP and TLS) before the fetch fails with `.transport`.
        /// Default 10 seconds (AsyncHTTPClient's own default).
        public var connectTimeout: Duration
        /// The longest a whole fetch may take, head and body, even while bytes keep arriving;
        /// past it the fetch fails with `.timedOut`. Default nil: no total limit, because a large
        /// image on a slow but live link should finish; `FetchRequest.idleTimeout` catches a
        /// dead one.
        public var totalTimeout: Duration?
        /// How long an idle pooled connection is kept for reuse. Default 60 seconds.
        public var idleConnectionLifetime: Duration
        /// TLS settings. Default nil: AsyncHTTPClient's client configuration, which verifies
        /// the server against the system trust store. ``trustRoots`` is the simpler way to trust
        /// a private CA; set this for anything else (client certificates, minimum version).
        public var tlsConfiguration: TLSConfiguration?
        /// The certificate authorities trusted for https. Default `.system`: the system's trust
        /// store (or `tlsConfiguration`'s roots, when one is set). Any other value replaces
        /// `tlsConfiguration`'s roots (`.only`) or adds to them (`.systemAnd`).
        public var trustRoots: TrustRoots
        /// Which HTTP versions the transport may speak. Default `.automatic`: HTTP/2 where an
        /// https server offers it (ALPN), HTTP/1.1 otherwise (plain http is always HTTP/1.1:
        /// cleartext HTTP/2 is never attempted). `.http1Only` keeps every fetch on HTTP/1.1.
        public var httpVersion: HTTPVersionPolicy

        /// A configuration; every knob has the default its doc comment states.
        public init(maxRedirects: Int = 5, maxConnectionsPerHost: Int = 6, connectTimeout: Duration = .seconds(10),
                    totalTimeout: Duration? = nil, idleConnectionLifetime: Duration = .seconds(60),
                    tlsConfiguration: TLSConfiguration? = nil, trustRoots: TrustRoots = .system,
                    httpVersion: HTTPVersionPolicy = .automatic) {
            self.maxRedirects = maxRedirects
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
            self.idleConnectionLifetime = idleConnectionLifetime
            self.tlsConfiguration = tlsConfiguration
            self.trustRoots = trustRoots
            self.httpVersion = httpVersion
        }

        /// The AsyncHTTPClient configuration these knobs translate to.
        func clientConfiguration() -> HTTPClient.Configuration {
            var pool = HTTPClient.Configuration.ConnectionPool(
                idleTimeout: .nanoseconds(idleConnectionLifetime.nanoseconds),
                concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, maxConnectionsPerHost))
            // A failed connect (refused, TLS rejected) fails the waiting fetch at once instead of
            // being retried with back-off until the connect timeout: the pipeline's RetryPolicy
            // owns retries, and a certificate failure must surface as `.tls`, not after 10 s.
            pool.retryConnectionEstablishment = false
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: trustRoots.applied(to: tlsConfiguration),
                redirectConfiguration: .follow(max: max(0, maxRedirects), allowCycles: false),
                timeout: .init(connect: .nanoseconds(connectTimeout.nanoseconds), read: nil),
                connectionPool: pool,
                // The transport undoes a Content-Encoding itself (ContentDecoder): it must count
                // the bytes the server sent (truncation, progress) and apply the size limit to
                // the decoded ones, and AsyncHTTPClient's decompressor would hide the former.
                decompression: .disabled)
            // HTTP/2 by default now that what pinned HTTP/1.1 holds per stream (NginxHTTP2Tests):
            // a cancelled or refused body resets its stream, which nginx logs as ended early, and
            // a waiting reader holds back its own stream by flow control. Plain http (loopback
            // tests, the bench's servers) stays HTTP/1.1, as AsyncHTTPClient never tries h2c.
            configuration.httpVersion = httpVersion.clientVersion
            return configuration
        }
    }
}

extension Duration {
    /// The whole duration in nanoseconds, saturating (for TimeAmount and the watchdog).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? .max : total
    }
}
