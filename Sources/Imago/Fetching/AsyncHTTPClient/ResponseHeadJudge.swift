import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// Decides from the final response head alone (redirects already followed) whether its body is
/// wanted, so that a refused body is never read: the caller drops the response, which makes
/// AsyncHTTPClient close the connection instead of draining it.
enum ResponseHeadJudge {
    enum Verdict {
        /// 304: the revalidated copy stands; no body.
        case notModified(FetchResponseHead)
        /// Read the body, undoing `encoding` (nil: identity).
        case accept(FetchResponseHead, encoding: ContentDecoder.Encoding?)
    }

    static func judge(_ response: HTTPClientResponse, maxResponseSize: Int) throws(FetchError) -> Verdict {
        let headers = response.headers
        let code = Int(response.status.code)
        let head = FetchResponseHead(
            statusCode: code,
            expectedLength: contentLength(headers),
            contentType: headers.first(name: "Content-Type"),
            etag: headers.first(name: "ETag"),
            lastModified: headers.first(name: "Last-Modified"),
            headers: FetchResponseHead.fields(headers.map { ($0.name, $0.value) }),
            httpVersion: "HTTP/\(response.version.major).\(response.version.minor)")
        if code == 304 { return .notModified(head) }
        guard (200...299).contains(code) else {
            let retryAfter = FetchError.isTransientStatus(code) ? RetryAfter.parse(headers.first(name: "Retry-After")) : nil
            throw .httpStatus(code, retryAfter: retryAfter, head: head)   // the disk cache judges it
        }
        let encoding = try ContentDecoder.Encoding(headers[canonicalForm: "Content-Encoding"].map(String.init))
        // The limit is on the bytes kept. Without an encoding the wire length is that size, so
        // an oversize body is refused here, unread. With one it says nothing certain about the
        // decoded size; the limit is then applied to the decoded bytes as they are produced.
        if encoding == nil, let expected = head.expectedLength, expected > maxResponseSize {
            throw .tooLarge(limit: maxResponseSize)
        }
        return .accept(head, encoding: encoding)
    }

    /// Content-Length when there is exactly one well-formed value (NIO's parser has already
    /// refused conflicting ones; chunked bodies have none).
    private static func contentLength(_ headers: HTTPHeaders) -> Int? {
        let values = headers[canonicalForm: "Content-Length"]
        guard values.count == 1, let length = Int(values[0]), length >= 0 else { return nil }
        return length
    }
}
