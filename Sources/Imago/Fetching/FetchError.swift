import Foundation

/// Why a fetch failed.
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A non-2xx status, decided at the response head; the body was not read. `retryAfter` is
    /// the wait the server asked for with `Retry-After` (seconds or an HTTP-date), when it sent
    /// one with a status worth retrying (408, 429, 5xx). `head` is the failing response's head
    /// as a transport saw it (nil when it does not say): the disk cache judges from its
    /// `Cache-Control`, `Expires`, `Date`, `Age` and `Last-Modified` whether a 404 or 410 may be
    /// remembered (negative caching). The pipeline hands its failures on without it
    /// (``withoutHead``), so a failed load compares equal to `.fetch(.httpStatus(404))`.
    case httpStatus(Int, retryAfter: Duration? = nil, head: FetchResponseHead? = nil)
    /// The connection failed or broke (the underlying error's description).
    case transport(String)
    /// Nothing arrived for the idle timeout. Not retried: the server was already given the whole
    /// timeout, and asking again would multiply the wait (a stall fails once).
    case timedOut
    /// The transfer ended short of its Content-Length (counted in the bytes the server sent,
    /// before any Content-Encoding is undone: rule HTTP-3).
    case truncated(expected: Int, received: Int)
    /// The body is larger than the request's `maxResponseSize` (`limit`, in bytes): refused at the
    /// head when Content-Length says so, otherwise as soon as the bytes received pass it. Not
    /// retried.
    case tooLarge(limit: Int)
    /// A 2xx response with no body.
    case emptyData
    /// The calling task was cancelled: the connection was closed and any download file removed.
    case cancelled
    /// The download's temporary file could not be written.
    case fileSystem(String)
    /// The TLS handshake or the server's certificate failed (the reason).
    case tls(String)
    /// The redirects went round in a circle, or on past the transport's limit.
    case tooManyRedirects(limit: Int)
    /// The URL's scheme is not http or https (the scheme); no request was made.
    case unsupportedScheme(String)
    /// The URL cannot be requested at all (no host, for one); no request was made.
    case invalidURL(String)
    /// A streaming body's consumer stopped the transfer (the reason: a decoder's error, say),
    /// or a streaming request had no consumer. Not retried.
    case bodyRefused(String)

    /// The same failure without the response head a transport attached to an `httpStatus`: what
    /// the pipeline reports, once its disk cache has judged the head.
    public var withoutHead: FetchError {
        guard case .httpStatus(let code, let retryAfter, _?) = self else { return self }
        return .httpStatus(code, retryAfter: retryAfter)
    }

    /// Worth retrying: connection errors, truncation, 408, 429 and 5xx. Never a TLS failure,
    /// redirect loop, bad URL, unsupported scheme, idle timeout, 2xx without a body or other 4xx.
    public var isTransient: Bool {
        switch self {
        case .transport, .truncated: true
        case .httpStatus(let code, _, _): Self.isTransientStatus(code)
        default: false
        }
    }

    /// 408, 429 and 5xx: the statuses worth asking again (`RetryPolicy`'s default
    /// `retriedStatuses`), and the only ones whose Retry-After Imago honours.
    public static let transientStatuses = IndexSet([408, 429]).union(IndexSet(integersIn: 500...599))

    /// Whether `code` is one of `transientStatuses`.
    public static func isTransientStatus(_ code: Int) -> Bool { transientStatuses.contains(code) }

    /// `description` (the short, stable vocabulary scripts match on) with what only a person
    /// needs: the wait a server asked for, why a scheme is refused.
    public var detail: String {
        switch self {
        case .httpStatus(_, let wait?, _):
            "\(description): the server asked to retry after \(wait.seconds.formatted3) s"
        case .unsupportedScheme:
            "\(description): only http and https are fetched; file URLs load as local files"
        default: description
        }
    }

    /// A short, stable name with its values, e.g. `httpStatus(404)`, `truncated(10 of 20 bytes)`:
    /// the vocabulary scripts and reports match on (``detail`` adds what a person needs).
    public var description: String {
        switch self {
        case .httpStatus(let code, _, _): "httpStatus(\(code))"
        case .transport(let message): "transport(\(message))"
        case .timedOut: "timedOut"
        case .truncated(let expected, let received): "truncated(\(received) of \(expected) bytes)"
        case .tooLarge(let limit): "tooLarge(limit \(limit))"
        case .emptyData: "emptyData"
        case .cancelled: "cancelled"
        case .fileSystem(let message): "fileSystem(\(message))"
        case .tls(let message): "tls(\(message))"
        case .tooManyRedirects(let limit): "tooManyRedirects(limit \(limit))"
        case .unsupportedScheme(let scheme): "unsupportedScheme(\(scheme))"
        case .invalidURL(let reason): "invalidURL(\(reason))"
        case .bodyRefused(let reason): "bodyRefused(\(reason))"
        }
    }
}

private extension Double {
    /// Up to three decimals, trailing zeros dropped: 2, 0.5, 1.25.
    var formatted3: String {
        var text = String(format: "%.3f", self)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
