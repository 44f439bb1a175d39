import AsyncHTTPClient

extension AsyncHTTPClientTransport {
    /// Which HTTP versions an `AsyncHTTPClientTransport` may speak
    /// (``Configuration/httpVersion``, default ``automatic``).
    ///
    /// What each one means for a fetch. Over HTTP/1.1 a fetch owns its connection while it runs:
    /// cancelling it, or refusing its body at the head, closes that connection, and TCP holds
    /// a slow reader's body back. Over HTTP/2 the fetches to one host share a connection, each
    /// on a stream of its own: cancelling or refusing one resets its stream (nginx logs it as
    /// ended early) while the connection and the other fetches on it go on, and a slow reader
    /// (a waiting decoder) holds back its own stream by HTTP/2 flow control, not the others.
    /// Progress, truncation (a stream reset mid-body is `.truncated`), the size limit, retries
    /// and timeouts are the same on both.
    public enum HTTPVersionPolicy: String, Sendable, Hashable, CaseIterable {
        /// HTTP/2 when an https server offers it by ALPN, HTTP/1.1 otherwise. Plain http is
        /// always HTTP/1.1: AsyncHTTPClient never tries cleartext HTTP/2 (h2c).
        case automatic
        /// HTTP/1.1 only, even where the server offers HTTP/2 (ALPN offers `http/1.1` alone).
        case http1Only

        /// AsyncHTTPClient's setting for this policy.
        var clientVersion: HTTPClient.Configuration.HTTPVersion {
            switch self {
            case .automatic: .automatic
            case .http1Only: .http1Only
            }
        }
    }
}
