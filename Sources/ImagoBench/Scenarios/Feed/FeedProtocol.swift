import Imago

/// The HTTP version a feed cell asks the AsyncHTTPClient transport for: the scenario's
/// protocol dimension, and the one place that knows how the transport is told.
///
/// nginx offers HTTP/2 by ALPN; whether the client takes it is the transport's
/// `httpVersion`, which ``configure(_:)`` sets.
public enum FeedProtocol: String, CaseIterable, Sendable {
    /// HTTP/1.1 with the transport's default connection limit (six per host).
    case http1 = "http1.1"
    /// HTTP/2, every fetch a stream on one shared connection.
    case http2

    /// `--http1.1` or `--http2`: how curl is asked for the same protocol.
    var curlFlag: String {
        switch self {
        case .http1: "--http1.1"
        case .http2: "--http2"
        }
    }

    /// The `%{http_version}` curl reports for a transfer over this protocol.
    var curlVersion: String {
        switch self {
        case .http1: "1.1"
        case .http2: "2"
        }
    }

    /// Sets `configuration` up to speak this protocol: `.http1Only` for ``http1`` (ALPN offers
    /// HTTP/1.1 alone), `.automatic` for ``http2`` (nginx offers h2 by ALPN and the client takes
    /// it). nginx's access log says which protocol each request really came over.
    func configure(_ configuration: inout AsyncHTTPClientTransport.Configuration) {
        configuration.httpVersion = self == .http1 ? .http1Only : .automatic
    }
}
