import Foundation
import NIOCore
import NIOHTTP1

/// Where a response's body bytes come from.
enum BodySource: Sendable {
    /// In-memory bytes (a route, or a short text body the server made up).
    case memory([UInt8])
    /// An open file, read in chunks on NIO's thread pool as the socket takes them.
    case file(NIOFileHandle)
}

/// A route or file, ready to answer one request.
struct Resource: Sendable {
    var source: BodySource
    var size: Int
    var contentType: String
    var entityTag: String
    var lastModifiedSeconds: Int64
}

/// Everything the response writer needs: what to send, and how badly to send it.
///
/// Why separate from the writer: deciding status and headers (conditionals, ranges, the
/// status fault, framing) is pure and testable; the writer only deals with time, gates
/// and the socket.
struct ResponsePlan {
    var head: HTTPResponseHead
    /// The body bytes; `bodyRange` of it is sent. Empty range: no body (HEAD, 304, 416).
    var source: BodySource
    var bodyRange: Range<Int>
    /// Whether the body goes out chunked (Transfer-Encoding set in `head`).
    var isChunked: Bool
    var faults: Faults
    /// Close the connection once the response is written (client asked, or HTTP/1.0).
    var closeAfterResponse: Bool
    /// A file opened for this request that the writer must close when done, even if the
    /// body comes from elsewhere (a status fault, a 304, a HEAD).
    var fileToClose: NIOFileHandle?
}

/// Decides status, headers and body range for a request.
enum ResponsePlanner {
    /// The response to a GET or HEAD for `resource`, with `faults` applied to the head.
    static func plan(request: HTTPRequestHead, resource: Resource, faults: Faults) -> ResponsePlan {
        var fileToClose: NIOFileHandle?
        if case .file(let handle) = resource.source { fileToClose = handle }
        if let code = faults.status {
            var plan = plain(request: request, status: HTTPResponseStatus(statusCode: code), faults: faults)
            plan.fileToClose = fileToClose
            return plan
        }

        var headers = baseHeaders(request: request)
        headers.add(name: "ETag", value: resource.entityTag)
        headers.add(name: "Last-Modified", value: HTTPDate.format(secondsSince1970: resource.lastModifiedSeconds))

        if notModified(request: request, resource: resource) {
            // A 304 carries the fields a 200 would have (RFC 9110 §15.4.5): Cache-Control,
            // Expires, Date, Vary... so the route's extra headers go on it too.
            addRouteHeaders(faults, to: &headers)
            return ResponsePlan(
                head: head(request, .notModified, headers), source: .memory([]), bodyRange: 0..<0,
                isChunked: false, faults: faults, closeAfterResponse: !keepsConnection(request),
                fileToClose: fileToClose)
        }

        headers.add(name: "Accept-Ranges", value: "bytes")
        headers.add(name: "Content-Type", value: faults.contentTypeOverride ?? resource.contentType)
        var status = HTTPResponseStatus.ok
        var range = 0..<resource.size
        switch faults.ignoresRange ? .whole : rangeRequest(request: request, resource: resource) {
        case .whole:
            break
        case .partial(let partial):
            status = .partialContent
            range = partial
            headers.add(name: "Content-Range", value: "bytes \(partial.lowerBound)-\(partial.upperBound - 1)/\(resource.size)")
        case .unsatisfiable:
            headers.add(name: "Content-Range", value: "bytes */\(resource.size)")
            headers.add(name: "Content-Length", value: "0")
            return ResponsePlan(
                head: head(request, .rangeNotSatisfiable, headers), source: .memory([]), bodyRange: 0..<0,
                isChunked: false, faults: faults, closeAfterResponse: !keepsConnection(request),
                fileToClose: fileToClose)
        }
        return withBody(request: request, status: status, headers: headers, source: resource.source,
                        range: range, faults: faults, fileToClose: fileToClose)
    }

    /// A response with a short `text/plain` body naming the status (404, 405, a status
    /// fault), with `faults` applied as for any body.
    static func plain(
        request: HTTPRequestHead, status: HTTPResponseStatus, faults: Faults, extraHeaders: HTTPHeaders = [:]
    ) -> ResponsePlan {
        var headers = baseHeaders(request: request)
        headers.add(contentsOf: extraHeaders)
        headers.add(name: "Content-Type", value: faults.contentTypeOverride ?? "text/plain; charset=utf-8")
        let text = Array("\(status.code) \(status.reasonPhrase)\n".utf8)
        return withBody(request: request, status: status, headers: headers, source: .memory(text),
                        range: 0..<text.count, faults: faults, fileToClose: nil)
    }

    // MARK: Pieces

    private static func withBody(
        request: HTTPRequestHead, status: HTTPResponseStatus, headers: HTTPHeaders, source: BodySource,
        range: Range<Int>, faults: Faults, fileToClose: NIOFileHandle?
    ) -> ResponsePlan {
        var headers = headers
        addRouteHeaders(faults, to: &headers)
        let mayHaveBody = status.mayHaveResponseBody
        let isHead = request.method == .HEAD
        // A HEAD response to a chunked resource gets neither framing header: there is no body
        // to frame, and claiming chunked would make the encoder write a terminating chunk.
        // HTTP/1.0 has no chunked coding: there, "chunked" means a body ended by closing.
        let isHTTP10 = request.version.major == 1 && request.version.minor == 0
        let isChunked = faults.chunked && mayHaveBody && !isHead && !isHTTP10
        if mayHaveBody && !faults.chunked {
            headers.add(name: "Content-Length", value: "\(range.count)")
        } else if isChunked {
            headers.add(name: "Transfer-Encoding", value: "chunked")
        }
        let closeDelimited = faults.chunked && mayHaveBody && !isHead && isHTTP10
        let sent = isHead || !mayHaveBody ? range.lowerBound..<range.lowerBound : range
        return ResponsePlan(
            head: head(request, status, headers), source: source, bodyRange: sent, isChunked: isChunked,
            faults: faults, closeAfterResponse: !keepsConnection(request) || closeDelimited, fileToClose: fileToClose)
    }

    /// `faults.headers`, replacing any the server set itself, so a route can also stand in for
    /// a server whose clock is elsewhere (`Date`); then `faults.omittedHeaders` taken out.
    private static func addRouteHeaders(_ faults: Faults, to headers: inout HTTPHeaders) {
        for (name, value) in faults.headers.sorted(by: { $0.key < $1.key }) { headers.replaceOrAdd(name: name, value: value) }
        for name in faults.omittedHeaders { headers.remove(name: name) }
    }

    /// Whether the connection stays open after this request's response. An HTTP/2 request
    /// (which NIO's `isKeepAlive` calls not keep-alive: it knows only HTTP/1) always keeps it:
    /// one stream ends, never the connection.
    private static func keepsConnection(_ request: HTTPRequestHead) -> Bool {
        request.version.major >= 2 || request.isKeepAlive
    }

    private static func baseHeaders(request: HTTPRequestHead) -> HTTPHeaders {
        // Date is required of an origin server with a clock (RFC 9110 §6.6.1); caches compute
        // ages and Retry-After dates against it.
        let now = Int64(Date().timeIntervalSince1970)
        var headers: HTTPHeaders = ["Server": "ImagoTestServer", "Date": HTTPDate.format(secondsSince1970: now)]
        if !keepsConnection(request) {
            headers.add(name: "Connection", value: "close")
        } else if request.version.major == 1 && request.version.minor == 0 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        return headers
    }

    private static func head(_ request: HTTPRequestHead, _ status: HTTPResponseStatus, _ headers: HTTPHeaders)
        -> HTTPResponseHead
    {
        HTTPResponseHead(version: request.version.major == 1 && request.version.minor == 0 ? .http1_0 : .http1_1,
                         status: status, headers: headers)
    }

    /// If-None-Match wins over If-Modified-Since when both are present (RFC 9110 §13.2.2).
    private static func notModified(request: HTTPRequestHead, resource: Resource) -> Bool {
        let noneMatch = request.headers[canonicalForm: "If-None-Match"]
        if !noneMatch.isEmpty {
            return EntityTag.noneMatchHits(noneMatch.joined(separator: ","), tag: resource.entityTag)
        }
        if let since = request.headers.first(name: "If-Modified-Since"), let seconds = HTTPDate.parse(since) {
            return resource.lastModifiedSeconds <= seconds
        }
        return false
    }

    /// Range applies to GET only, and only while If-Range (if sent) still matches.
    private static func rangeRequest(request: HTTPRequestHead, resource: Resource) -> RangeRequest {
        guard request.method == .GET, let range = request.headers.first(name: "Range") else { return .whole }
        if let ifRange = request.headers.first(name: "If-Range") {
            let allows: Bool
            if let date = HTTPDate.parse(ifRange) {
                allows = date == resource.lastModifiedSeconds
            } else {
                allows = EntityTag.ifRangeTagAllows(ifRange, tag: resource.entityTag)
            }
            if !allows { return .whole }
        }
        return RangeRequest(header: range, size: resource.size)
    }
}
