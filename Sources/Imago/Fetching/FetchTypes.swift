import Foundation

/// How a response body is received.
public enum FetchStrategy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Accumulate the body in memory (a data task): the fewest copies for small images.
    case data
    /// Stream the body to a temporary file as it arrives and decode from the file: the whole
    /// compressed body is never held in memory, which matters for very large images.
    case file
    /// Hand the body to the decoder as it arrives (`FetchRequest.bodyConsumer`): pixels are ready
    /// when the last byte is, and no copy of the body is kept (with a disk cache, the bytes are
    /// also written to the cache's temporary file and published once complete and decoded).
    case stream

    /// The strategies that hand back a stored body (`FetchResult.Body.data` or `.file`), which
    /// transport tests inspect; `.stream` needs a consumer.
    public static let storing: [FetchStrategy] = [.data, .file]
}

/// Takes a streaming fetch's body piece by piece (`FetchStrategy.stream`), Content-Encoding
/// already undone. The transport asks for the next piece only after `consume` returns: a
/// consumer that waits (for decode memory, say) holds the transfer back through TCP.
public protocol StreamingBodyConsumer: AnyObject, Sendable {
    /// Takes the next piece. Throwing stops the transfer (its connection is closed); the fetch
    /// then fails with the error thrown (`.bodyRefused` by convention).
    func consume(_ piece: Data) async throws(FetchError)
}

/// The consumer a streaming request hands its body to; equal only to itself (a request's
/// identity does not depend on who reads its body).
public struct BodyConsumerReference: Sendable, Hashable {
    /// The consumer itself, held strongly for as long as the request is.
    public let consumer: any StreamingBodyConsumer

    /// Wraps `consumer`; two references are equal only when they wrap the same object.
    public init(_ consumer: any StreamingBodyConsumer) { self.consumer = consumer }

    /// True when both wrap the same consumer object (`===`), whatever its state.
    public static func == (a: Self, b: Self) -> Bool { a.consumer === b.consumer }
    /// Hashes the consumer's object identity, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(consumer)) }
}

/// One HTTP GET the transport performs.
public struct FetchRequest: Sendable, Hashable {
    /// The http or https URL to GET. Before any I/O, another scheme fails with
    /// `.unsupportedScheme`, and a URL without a scheme or host, or with a port outside
    /// 1...65535, with `.invalidURL`.
    public var url: URL
    /// Extra request headers (the pipeline adds If-None-Match / If-Modified-Since to revalidate).
    public var headers: [String: String]
    /// How the body is received: in memory, to a file, or to `bodyConsumer`. Default `.data`.
    public var strategy: FetchStrategy
    /// Time without receiving anything before the fetch fails with `.timedOut`. Default 30 s.
    /// `AsyncHTTPClientTransport` uses it exactly (250 ms is 250 ms; zero, negative, or
    /// `FetchRequest.noIdleTimeout` and longer turns it off); `URLSessionTransport` rounds it up
    /// to whole seconds (at least 1), because URLSession on Linux truncates fractions (0.5 s
    /// would time out at once).
    public var idleTimeout: Duration
    /// Bytes a body may have; larger ones fail with `.tooLarge` as soon as that is known (from
    /// Content-Length at the head, or while receiving). Default 256 MiB.
    public var maxResponseSize: Int
    /// Directory for the download-to-file temporaries the transport names itself (see
    /// `downloadFileURL`). Default: the system temporary directory.
    public var temporaryDirectory: URL
    /// The partial a download to file continues or starts (its owner adds its `Range` /
    /// `If-Range` to `headers` and settles it after the attempt); only `.file` uses it.
    /// Default nil: a fresh temporary, removed on any failure.
    public var resumption: ResumableDownload? = nil
    /// Where a `.stream` request's body goes. Default nil; a streaming request without one
    /// fails with `.bodyRefused` before any I/O.
    public var bodyConsumer: BodyConsumerReference? = nil
    /// The file a download to file (without `resumption`) writes its body to, when its owner
    /// has one for it: the pipeline hands in one the disk cache gave out
    /// (`DiskCache.makeTemporaryFileURL`), so the finished body is renamed into the cache.
    /// Default nil: a fresh `downloadFilePrefix` file in `temporaryDirectory`.
    public var downloadFileURL: URL? = nil

    /// Prefix of the download temporaries a transport names itself in `temporaryDirectory`.
    public static let downloadFilePrefix = ".tmp-imago-download-"

    /// The path for this request's download-to-file body: `downloadFileURL`, or a fresh one.
    public func makeDownloadFileURL() -> URL {
        downloadFileURL ?? temporaryDirectory.appendingPathComponent(Self.downloadFilePrefix + UUID().uuidString)
    }

    /// An idle timeout that never fires: a billion seconds (31 years). `Duration` has no
    /// infinity, and a deadline this far out is where the transports stop counting.
    public static let noIdleTimeout: Duration = .seconds(1_000_000_000)

    /// A GET of `url` with the defaults: no extra headers, `.data`, a 30 s idle timeout, a 256 MiB
    /// body limit, the system temporary directory, no resumption, consumer or download file.
    public init(url: URL, headers: [String: String] = [:], strategy: FetchStrategy = .data,
                idleTimeout: Duration = .seconds(30), maxResponseSize: Int = 256 << 20,
                temporaryDirectory: URL = FileManager.default.temporaryDirectory) {
        self.url = url
        self.headers = headers
        self.strategy = strategy
        self.idleTimeout = idleTimeout
        self.maxResponseSize = maxResponseSize
        self.temporaryDirectory = temporaryDirectory
    }
}

/// What the response head said.
public struct FetchResponseHead: Sendable, Hashable {
    /// The final response's HTTP status (after redirects); a transport throws `.httpStatus` for a
    /// non-2xx one other than 304 instead of returning it.
    public var statusCode: Int
    /// Content-Length in bytes, or nil when the response has none or, under URLSession, carries a
    /// Content-Encoding (libcurl's decoded bytes are not what it counts).
    public var expectedLength: Int?
    /// The `Content-Type` field, verbatim; Imago decides the format from the bytes, never from it.
    public var contentType: String?
    /// The `ETag` field, verbatim: the validator a revalidation sends back as `If-None-Match`.
    public var etag: String?
    /// The `Last-Modified` field, verbatim: sent back as `If-Modified-Since` (beside any ETag).
    public var lastModified: String?
    /// Every header field of the final response, names lowercased, repeated fields joined with
    /// ", " (RFC 9110 §5.3): what the HTTP cache policy reads (`Cache-Control`, `Expires`,
    /// `Date`, `Age`, `Vary`, `Accept-Ranges`...). Default empty.
    public var headers: [String: String] = [:]
    /// The protocol the response came over, as `HTTP/MAJOR.MINOR` (`HTTP/1.1`, `HTTP/2.0`: the
    /// spelling of nginx's `$server_protocol`). Default nil: the transport cannot tell
    /// (`URLSessionTransport`: FoundationNetworking does not say).
    public var httpVersion: String? = nil

    /// A head as a transport of an app's own (or a test's) reports it; every field but the status
    /// defaults to absent (nil, or no headers).
    public init(statusCode: Int, expectedLength: Int? = nil, contentType: String? = nil, etag: String? = nil,
                lastModified: String? = nil, headers: [String: String] = [:], httpVersion: String? = nil) {
        self.statusCode = statusCode
        self.expectedLength = expectedLength
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.headers = headers
        self.httpVersion = httpVersion
    }

    /// Header fields as `headers` keeps them: names lowercased, repeated fields joined.
    public static func fields(_ pairs: some Sequence<(String, String)>) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in pairs {
            let key = name.lowercased()
            if let earlier = fields[key] { fields[key] = earlier + ", " + value } else { fields[key] = value }
        }
        return fields
    }
}

/// A completed fetch.
public struct FetchResult: Sendable {
    /// Where the body ended up.
    public enum Body: Sendable {
        /// The whole body in memory (`.data` requests, or a download to file whose file could
        /// not be written), Content-Encoding undone.
        case data(Data)
        /// A temporary file holding exactly the body; the receiver moves or deletes it.
        case file(URL)
        /// 304: the cached copy the request revalidated is still good.
        case notModified
        /// `.stream`: every byte went to the request's `bodyConsumer`, none was kept.
        case streamed
    }
    /// The final response's head (the 304's for `.notModified`).
    public var head: FetchResponseHead
    /// The body, as the request's strategy had it received.
    public var body: Body
    /// Body bytes received: as the server sent them (before any Content-Encoding is undone)
    /// with AsyncHTTPClient; decoded bytes with URLSession, whose libcurl undoes the coding first.
    public var receivedBytes: Int
    /// The URL the body came from, after redirects (nil when the transport cannot tell).
    /// Default nil.
    public var finalURL: URL? = nil
    /// Redirects followed to get here. Default 0.
    public var redirects: Int = 0
    /// Bytes of the body that an earlier attempt had kept and this one continued with a 206
    /// (`receivedBytes` counts only the rest). Default 0: the whole body came now.
    public var resumedFrom: Int = 0

    /// A result as a transport of an app's own (or a test's) hands it back.
    public init(head: FetchResponseHead, body: Body, receivedBytes: Int, finalURL: URL? = nil, redirects: Int = 0,
                resumedFrom: Int = 0) {
        self.head = head
        self.body = body
        self.receivedBytes = receivedBytes
        self.finalURL = finalURL
        self.redirects = redirects
        self.resumedFrom = resumedFrom
    }
}

/// Bytes received so far; `expected` is nil when the response has no Content-Length (or, under
/// URLSession, a Content-Encoding: libcurl reports decoded bytes, which the encoded length does
/// not count).
public struct FetchProgress: Sendable, Hashable {
    /// Body bytes received so far, as the transport counts them (see
    /// ``FetchResult/receivedBytes``).
    public var received: Int
    /// The body's length in bytes, when known (Content-Length); nil otherwise.
    public var expected: Int?

    /// Progress of `received` bytes out of `expected` (nil: unknown total).
    public init(received: Int, expected: Int?) {
        self.received = received
        self.expected = expected
    }

    /// Completed fraction in 0...1, or nil when the total is unknown (never made up).
    public var fraction: Double? {
        guard let expected, expected > 0 else { return nil }
        return min(1, Double(received) / Double(expected))
    }
}

/// Moves bytes from a server to the pipeline. URLSession is the built-in one; tests and other
/// stacks can plug in their own.
public protocol ImageTransport: Sendable {
    /// Fetches `request`, reporting progress as bytes arrive. Cancelling the calling task ends
    /// the fetch promptly with `.cancelled` and closes the connection.
    func fetch(_ request: FetchRequest,
               progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult

    /// Whether fetches of `url` may share one connection (HTTP/2) before its origin has answered
    /// once: the pipeline then lets the first fetches to a new host take stream slots
    /// (`Limits.maxConcurrentStreams`) rather than wait, six at a time, for the first response
    /// to say what the host speaks. Default false.
    func mayMultiplex(_ url: URL) -> Bool
}

extension ImageTransport {
    /// False: one request per connection until a response says otherwise.
    public func mayMultiplex(_ url: URL) -> Bool { false }
}
