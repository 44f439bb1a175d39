import Foundation

/// What makes a response worth continuing later (RFC 9110 §13.1.5, §14): a strong validator to
/// send in `If-Range`, and a server that said it answers byte ranges.
enum ResumeValidator {
    /// Seconds a `Last-Modified` must lie before the response's `Date` to count as strong
    /// (RFC 9110 §8.8.2.2): a resource changed within the same second could otherwise carry the
    /// same date twice.
    static let lastModifiedMargin: TimeInterval = 60

    /// The strong validator of `head`: its `ETag` unless weak (`W/`), else its `Last-Modified`
    /// when it is at least ``lastModifiedMargin`` before `Date`; nil when there is none.
    static func strong(_ head: FetchResponseHead) -> String? {
        if let etag = head.etag?.trimmingCharacters(in: .whitespaces), !etag.isEmpty {
            return etag.hasPrefix("W/") ? nil : etag
        }
        guard let lastModified = head.lastModified?.trimmingCharacters(in: .whitespaces),
              let modified = HTTPDate.parse(lastModified),
              let dateField = head.headers["date"], let date = HTTPDate.parse(dateField),
              date.timeIntervalSince(modified) >= lastModifiedMargin
        else { return nil }
        return lastModified
    }

    /// Whether the server announced `Accept-Ranges: bytes` (a 206 implies it).
    static func acceptsByteRanges(_ head: FetchResponseHead) -> Bool {
        if head.statusCode == 206 { return true }
        guard let field = head.headers["accept-ranges"] else { return false }
        return field.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "bytes" }
    }

    /// Whether the body arrives as stored: a partial of decoded bytes could not be continued with
    /// a range of encoded ones.
    static func isIdentity(_ head: FetchResponseHead) -> Bool {
        guard let coding = head.headers["content-encoding"]?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return true
        }
        return coding.isEmpty || coding == "identity"
    }
}

/// A `Content-Range: bytes first-last/complete` field (RFC 9110 §14.4) of a 206.
struct ContentRange: Equatable {
    let first: Int
    let last: Int
    /// The complete length; nil for `*` (unknown), which a resumed download cannot use.
    let complete: Int?

    /// nil unless the field is well formed with `first <= last < complete`.
    init?(_ field: String?) {
        guard let field = field?.trimmingCharacters(in: .whitespaces), field.lowercased().hasPrefix("bytes ") else {
            return nil
        }
        let spec = field.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, first <= last else {
            return nil
        }
        let complete: Int?
        if halves[1] == "*" { complete = nil } else {
            guard let value = Int(halves[1]), value > last else { return nil }
            complete = value
        }
        (self.first, self.last, self.complete) = (first, last, complete)
    }
}
