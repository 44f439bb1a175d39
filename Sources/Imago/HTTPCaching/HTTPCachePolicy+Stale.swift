import Foundation

/// RFC 5861's two permissions to use a stale entry without a 304. The one rule for both: only
/// where the policy serves stale content at all (`servesStale`), never against `no-cache`,
/// `must-revalidate` (RFC 9111 §4.2.4) or `alwaysRevalidate`, and only within the window the
/// response itself granted, counted from the moment it went stale.
extension HTTPCachePolicy {
    /// Whether `metadata`'s entry (stored at `storedAt`), if the fetch revalidating or
    /// replacing it fails with an error `stale-if-error` covers (`coversOrigin(failure:)`), may
    /// serve the load instead, at `now`.
    func servesOnError(_ metadata: DiskCache.Metadata, storedAt: Date, now: Date) -> Bool {
        let control = CacheControl(metadata.responseHeaders["cache-control"])
        guard mayServeStale(control), let window = control.staleIfError else { return false }
        // An entry selected for other request headers stands in for nothing (RFC 9111 §4.1).
        guard Self.selects(metadata, requestHeaders: Self.sentRequestHeaders) else { return false }
        let freshness = ResponseFreshness(metadata, storedAt: storedAt, policy: self, now: now)
        return freshness.isFresh || freshness.isWithin(staleWindow: window)
    }

    /// The errors `stale-if-error` covers (RFC 5861 §4): a 500, 502, 503 or 504 from the origin,
    /// or no answer from it at all (unreachable, reset, timed out, cut short). Not a 404 or any
    /// other answer the origin meant, and never a cancellation.
    static func coversOrigin(failure: FetchError) -> Bool {
        switch failure {
        case .httpStatus(let code, _, _): [500, 502, 503, 504].contains(code)
        case .transport, .timedOut, .truncated, .emptyData: true
        default: false
        }
    }

    /// The directives and the policy allow a stale use at all (windows aside).
    func mayServeStale(_ control: CacheControl) -> Bool {
        servesStale && !alwaysRevalidate && !control.noCache && !control.mustRevalidate
    }
}

extension ResponseFreshness {
    /// Stale by less than `window` seconds (nil: no window granted).
    func isWithin(staleWindow window: Int?) -> Bool {
        guard let window, lifetime.isFinite else { return false }
        return currentAge - lifetime < Double(window)
    }
}
