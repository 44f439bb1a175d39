/// Misbehaviour to inject into a response, so clients can be tested against slow, broken
/// and lying servers on loopback. Every knob is optional and off by default; ``none`` is
/// an honest server.
///
/// Byte counts refer to the body of *this* response (for a 206, of the range sent), not
/// the whole resource. The order a response goes through is: ``latencyBeforeHead``, then
/// ``gate`` if it holds the head, then the head, then the body paced by
/// ``bytesPerSecond`` up to ``stallAfterBytes`` / ``closeAfterBytes``.
public struct Faults: Sendable {
    /// Wait this long before sending the response head (scheduled on the event loop, not
    /// slept). Default `nil`: no wait.
    public var latencyBeforeHead: Duration?

    /// Limit the body to this many bytes per second, sent in small chunks (about 20 per
    /// second) scheduled on the event loop from the moment the head was sent. Default
    /// `nil`: as fast as the socket takes it.
    public var bytesPerSecond: Int?

    /// Send this many body bytes, then stop sending and keep the connection open: until
    /// ``gate`` opens if there is one (then the rest follows), else until the client gives
    /// up. Default `nil`: no stall. With a value, ``gate`` holds the body here, not the head.
    public var stallAfterBytes: Int?

    /// Send this many body bytes, then close the connection although the head promised
    /// more (Content-Length is the full size): a truncated transfer. Default `nil`.
    public var closeAfterBytes: Int?

    /// Answer with this status code and a short `text/plain` body (e.g. 404 or 503)
    /// instead of the resource; conditional and range headers are then ignored. Default
    /// `nil`: the resource's own status.
    public var status: Int?

    /// Send this Content-Type instead of the true one. Default `nil`: the true one.
    public var contentTypeOverride: String?

    /// Send the body with `Transfer-Encoding: chunked` and no Content-Length. Default `false`.
    public var chunked: Bool

    /// Hold the response head (or, with ``stallAfterBytes``, the body after that many
    /// bytes) until the test opens this gate. Default `nil`: nothing held.
    public var gate: Gate?

    /// Extra response headers, sent with every response of the route (`Retry-After` with a
    /// status fault, say); one the server sends itself is replaced (`ETag: W/"x"` makes the tag
    /// weak, `Accept-Ranges: none` withdraws range support from the head while the server still
    /// answers ranges). Default empty.
    public var headers: [String: String]

    /// Response header fields the server would send but leaves out (names compared
    /// case-insensitively), e.g. `["ETag", "Last-Modified"]` for a response without validators,
    /// or `Date` for an origin without a clock. Default empty.
    public var omittedHeaders: Set<String>
    /// Answer a `Range` request with the whole body and 200, as a server (or a proxy) that does
    /// not do ranges although it sent `Accept-Ranges: bytes` before. Default `false`: ranges are
    /// answered with 206 while `If-Range` (if sent) matches.
    public var ignoresRange: Bool

    /// An honest response: no faults at all.
    public static let none = Faults()

    /// Faults with every knob at its default unless given.
    public init(
        latencyBeforeHead: Duration? = nil,
        bytesPerSecond: Int? = nil,
        stallAfterBytes: Int? = nil,
        closeAfterBytes: Int? = nil,
        status: Int? = nil,
        contentTypeOverride: String? = nil,
        chunked: Bool = false,
        gate: Gate? = nil,
        headers: [String: String] = [:],
        omittedHeaders: Set<String> = [],
        ignoresRange: Bool = false
    ) {
        self.latencyBeforeHead = latencyBeforeHead
        self.bytesPerSecond = bytesPerSecond
        self.stallAfterBytes = stallAfterBytes
        self.closeAfterBytes = closeAfterBytes
        self.status = status
        self.contentTypeOverride = contentTypeOverride
        self.chunked = chunked
        self.gate = gate
        self.headers = headers
        self.omittedHeaders = omittedHeaders
        self.ignoresRange = ignoresRange
    }

    /// Whether the gate (if any) holds the head rather than the body.
    var gateHoldsHead: Bool { gate != nil && stallAfterBytes == nil }
}
