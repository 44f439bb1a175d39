import Imago

/// The HTTP version a feed cell asks the AsyncHTTPClient transport for: the scenario's
/// protocol dimension, and the one place that knows how the transport is told.
///
/// Why a seam: nginx offers HTTP/2 by ALPN, but whether the client takes it is the
/// transport's choice. Where this build's transport offers no way to ask for a protocol,
/// ``configure(_:)`` says so, and every row of that protocol is skipped with its reason
/// instead of measuring the other protocol under its name.
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

    /// Sets `configuration` up to speak this protocol, or returns why this build's transport
    /// cannot (nil when it can).
    ///
    /// It asks the configuration itself (by reflection) whether it has an HTTP version knob.
    /// Without one, as on this build, the transport's client is pinned to HTTP/1.1 (see
    /// `AsyncHTTPClientTransport+Configuration.swift`): HTTP/1.1 needs nothing and HTTP/2 cannot
    /// be asked for. Once the knob exists, neither protocol is measured until it is set here
    /// (`.http1Only` for ``http1``, ALPN negotiation for ``http2``), so no row carries a protocol
    /// it was not fetched over; the scenario, its report and its goals need nothing else.
    func configure(_ configuration: inout AsyncHTTPClientTransport.Configuration) -> String? {
        let hasVersionKnob = Mirror(reflecting: configuration).children.contains { $0.label == Self.versionKnob }
        if hasVersionKnob {
            return "the AsyncHTTPClient transport has an `\(Self.versionKnob)` knob that FeedProtocol.configure does not set yet"
        }
        switch self {
        case .http1: return nil
        case .http2: return "the AsyncHTTPClient transport negotiates HTTP/1.1 only on this build"
        }
    }

    /// The name an HTTP version knob of the transport's configuration would have.
    static let versionKnob = "httpVersion"
}
