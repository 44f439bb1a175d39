/// One line of the access log an ``NginxServer`` writes: one request as nginx finished it.
///
/// Why the access log is the request counter: it is nginx's own account, written unbuffered
/// (one `write` per finished request), so a test reads exact counts without instrumenting the
/// client. nginx finishes requests one at a time on its single event loop, so once a request's
/// line is there, the lines of every request nginx finished before it are there too.
public struct NginxAccessLogEntry: Sendable, Hashable, CustomStringConvertible {
    /// The request target as the client sent it: path and query (`$request_uri`).
    public var requestURI: String
    /// The status nginx sent, or 499 when the client closed while nginx waited on an upstream.
    public var status: Int
    /// Body bytes nginx sent (`$body_bytes_sent`): compressed bytes when it compressed, fewer
    /// than the file when the client left early.
    public var bodyBytesSent: Int
    /// The Content-Encoding nginx sent, nil for none.
    public var contentEncoding: String?
    /// The Accept-Encoding the client sent, nil for none.
    public var acceptEncoding: String?
    /// Whether nginx sent the whole response (`$request_completion`); false when the client
    /// closed the connection first.
    public var completed: Bool
    /// The address the request came in on (`$server_addr`): `127.0.0.1` or `::1`.
    public var serverAddress: String

    /// What a caching proxy did (`$upstream_cache_status`: MISS, HIT, EXPIRED, REVALIDATED,
    /// STALE, UPDATING, BYPASS), nil where the location does not cache.
    public var cacheStatus: String?
    /// The protocol of the request (`$server_protocol`): `HTTP/1.1`, or `HTTP/2.0` over h2.
    public var serverProtocol: String
    /// nginx's serial number of the connection the request came on (`$connection`): requests
    /// with the same number shared one connection (HTTP/1.1 keep-alive, or HTTP/2 streams).
    public var connection: Int

    /// ``requestURI`` without its query.
    public var path: String { String(requestURI.prefix(while: { $0 != "?" })) }

    /// The `log_format` these entries are parsed from: tab-separated (nginx escapes a tab or
    /// quote inside a value, so the fields cannot run into each other).
    static let logFormat = #""$request_uri\t$status\t$body_bytes_sent\t$sent_http_content_encoding\t$http_accept_encoding\t$request_completion\t$server_addr\t$upstream_cache_status\t$server_protocol\t$connection""#

    /// Parses one line; nil for a line that is not in ``logFormat`` (a partly written last line).
    init?(line: Substring) {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 10, let status = Int(fields[1]), let sent = Int(fields[2]),
              let connection = Int(fields[9]) else { return nil }
        func optional(_ field: Substring) -> String? { field.isEmpty || field == "-" ? nil : String(field) }
        requestURI = String(fields[0])
        self.status = status
        bodyBytesSent = sent
        contentEncoding = optional(fields[3])
        acceptEncoding = optional(fields[4])
        completed = fields[5] == "OK"
        serverAddress = String(fields[6])
        cacheStatus = optional(fields[7])
        serverProtocol = String(fields[8])
        self.connection = connection
    }

    /// All complete lines of a log's text, in order (a last line without its newline yet is
    /// left for the next read).
    static func parse(_ text: String) -> [NginxAccessLogEntry] {
        guard let end = text.lastIndex(of: "\n") else { return [] }
        return text[..<end].split(separator: "\n").compactMap { NginxAccessLogEntry(line: $0) }
    }

    /// `URI STATUS N bytes`, then the Content-Encoding in parentheses, `incomplete`, and
    /// `cache STATUS` when they apply: one entry as a failure message prints it.
    public var description: String {
        "\(requestURI) \(status) \(bodyBytesSent) bytes"
            + (contentEncoding.map { " (\($0))" } ?? "") + (completed ? "" : " incomplete")
            + (cacheStatus.map { " cache \($0)" } ?? "")
    }
}
