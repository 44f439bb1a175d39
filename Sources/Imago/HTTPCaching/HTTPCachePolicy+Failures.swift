import Foundation

/// Negative caching: a 404 or 410 whose response gives it freshness is remembered, and while it
/// is fresh a load of its URL fails again at once, without a request (rules ERR-4 and RETRY-1 of
/// Docs/phase-rules.md say how this meets "no negative caching").
///
/// Only 404 and 410: they are the origin's considered answer that the resource is not there,
/// and heuristically cacheable by default (RFC 9110 §15.1). A 5xx is transient (RETRY-1
/// retries it) and what a cache does about one is `stale-if-error`'s business; other 4xx say
/// something about the request (401, 403, 429...), not a lasting fact about the URL.
///
/// Freshness is always the server's (RFC 9111 §4.2, computed by `ResponseFreshness` exactly as
/// for a stored image, in `.http` mode): explicit (`max-age`, else `Expires` − `Date`, `Age`
/// and the response delay subtracted; `s-maxage` is for shared caches and ignored, as for
/// images) or heuristic (10 % of `Date` − `Last-Modified`, capped by `maxHeuristicLifetime`).
/// Neither the aggressive mode nor a `timeToLive` lends a failure a lifetime it was not given:
/// a failure with no freshness of its own is never remembered (ERR-4).
extension HTTPCachePolicy {
    /// Whether a failed response is remembered, and until when.
    enum FailureMemory: Equatable {
        /// Remember it with this metadata (`failureStatus` set); it is fresh until `freshUntil`
        /// by the pipeline's clock.
        case remember(DiskCache.Metadata, freshUntil: Date)
        /// Do not: the status is not one a cache remembers, or the response forbids it or gives
        /// no freshness.
        case forget(DiskCacheOutcome.NotStoredReason)
    }

    /// The statuses a failure is remembered for (see above).
    static let rememberedFailureStatuses: Set<Int> = [404, 410]

    /// The decision for a failed response with `head`, fetched with `requestHeaders`, sent at
    /// `requestedAt` and received at `receivedAt` (the pipeline's clock).
    func failureMemory(for head: FetchResponseHead, requestHeaders: [String: String],
                       requestedAt: Date, receivedAt: Date) -> FailureMemory {
        guard Self.rememberedFailureStatuses.contains(head.statusCode) else { return .forget(.status) }
        var metadata = Self.metadata(head.headers, requestHeaders: requestHeaders,
                                     requestedAt: requestedAt, receivedAt: receivedAt)
        metadata.failureStatus = head.statusCode
        let control = CacheControl(metadata.responseHeaders["cache-control"])
        if control.noStore { return .forget(.noStore) }
        if Self.varyNames(metadata.responseHeaders["vary"]).contains("*") { return .forget(.varyAll) }
        // A failure is never revalidated: what must be asked again before every use is not
        // remembered at all.
        if control.noCache || alwaysRevalidate { return .forget(.notReusable) }
        let freshness = failureFreshness(metadata, storedAt: receivedAt, now: receivedAt)
        guard freshness.isFresh else { return .forget(.notReusable) }
        return .remember(metadata, freshUntil: receivedAt.addingTimeInterval(freshness.lifetime - freshness.currentAge))
    }

    /// Whether the remembered failure `metadata` (stored at `storedAt`) answers a request sending
    /// `requestHeaders` at `now` without a request: it matches `Vary` and is still fresh. A stale
    /// one is fetched again, unconditionally (a 404 rarely carries a validator, and a 304 would
    /// only confirm a failure).
    func repeatsFailure(_ metadata: DiskCache.Metadata, storedAt: Date, requestHeaders: [String: String],
                        now: Date) -> Bool {
        guard metadata.failureStatus != nil, Self.selects(metadata, requestHeaders: requestHeaders),
              !alwaysRevalidate, !CacheControl(metadata.responseHeaders["cache-control"]).noCache
        else { return false }
        return failureFreshness(metadata, storedAt: storedAt, now: now).isFresh
    }

    /// The server's freshness for a failure: this policy's heuristic cap, never its mode's or
    /// time to live's overrides.
    private func failureFreshness(_ metadata: DiskCache.Metadata, storedAt: Date, now: Date) -> ResponseFreshness {
        let serversWord = HTTPCachePolicy(mode: .http, maxHeuristicLifetime: maxHeuristicLifetime)
        return ResponseFreshness(metadata, storedAt: storedAt, policy: serversWord, now: now)
    }
}
