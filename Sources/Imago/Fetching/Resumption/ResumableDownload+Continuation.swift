import Foundation

// The two judgments a resumable download makes of a response, apart from the files it keeps:
// which answer continues a partial, and what of a broken body is worth keeping. Pure functions
// of the partial, the answer and the size limit, so each rule lives here once.

extension ResumableDownload.Partial {
    /// The body a 206 answering a request for the bytes from `asked` on writes when it continues
    /// this partial, or nil when it does not: another range, no complete length, a size past
    /// `limit` (or another one than the partial's), a coded body, or another strong validator.
    func continued(by head: FetchResponseHead, at asked: Int, limit: Int) -> ResumableDownload.Body? {
        guard let range = ContentRange(head.headers["content-range"]), let total = range.complete,
              range.first == asked, range.last == total - 1, total <= limit,
              self.total.map({ $0 == total }) ?? true,
              head.expectedLength.map({ $0 == total - asked }) ?? true,
              ResumeValidator.isIdentity(head)
        else { return nil }
        // If-Range promised the same representation; a server that says otherwise is not trusted.
        if validator.hasPrefix("\""), let etag = head.etag, etag != validator { return nil }
        let storable = !CacheControl(head.headers["cache-control"]).noStore
        return ResumableDownload.Body(offset: asked, total: total,
                                      validator: storable ? ResumeValidator.strong(head) ?? validator : nil)
    }
}

extension ResumableDownload.Body {
    /// What of this body is worth keeping after `error`: only a mid-body break (truncation, a
    /// connection error, an idle timeout) of a continuable body, with at least one byte, short
    /// of its total, and within `limit`; nil otherwise.
    func keepable(after error: FetchError, limit: Int) -> ResumableDownload.Partial? {
        switch error {
        case .truncated, .transport, .timedOut: break
        default: return nil
        }
        let bytes = offset + written
        guard let validator, bytes > 0, bytes <= limit,
              total.map({ bytes < $0 && $0 <= limit }) ?? true
        else { return nil }
        return ResumableDownload.Partial(validator: validator, bytes: bytes, total: total)
    }
}
