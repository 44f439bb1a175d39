import Foundation

extension HTTPCachePolicy {
    /// What to do with a stored entry for a new load.
    enum Use: Equatable {
        /// Use it without a request.
        case fresh
        /// Ask the server first, with these conditional request headers; a 304 serves it.
        case revalidate([String: String])
        /// It cannot serve this request (a `Vary` mismatch, or stale with no validator): fetch
        /// anew, unconditionally.
        case refetch
        /// Stale, but within its `stale-while-revalidate` window: use it at once and revalidate
        /// in the background with these conditional headers (none: fetch anew).
        case staleWhileRevalidate([String: String])
    }

    /// Whether a response may be written to disk, and with what metadata.
    enum Storage: Equatable {
        case store(DiskCache.Metadata)
        case refuse(DiskCacheOutcome.NotStoredReason)
    }

    /// The decision for `metadata`'s entry (stored at `storedAt`) and a request sending
    /// `requestHeaders` (lowercased names), at `now` by the pipeline's clock.
    func use(_ metadata: DiskCache.Metadata, storedAt: Date, requestHeaders: [String: String], now: Date) -> Use {
        guard Self.selects(metadata, requestHeaders: requestHeaders) else { return .refetch }
        let control = CacheControl(metadata.responseHeaders["cache-control"])
        let freshness = ResponseFreshness(metadata, storedAt: storedAt, policy: self, now: now)
        let fresh = freshness.isFresh
        let mustAsk = mode == .http && control.noCache
        if fresh && control.immutable && !mustAsk { return .fresh }
        if fresh && !mustAsk && !alwaysRevalidate { return .fresh }
        let conditional = Self.conditionalHeaders(metadata)
        if !fresh, mayServeStale(control), freshness.isWithin(staleWindow: control.staleWhileRevalidate) {
            return .staleWhileRevalidate(conditional)
        }
        return conditional.isEmpty ? .refetch : .revalidate(conditional)
    }

    /// Whether `metadata`'s entry answers a request sending `requestHeaders` at all (RFC 9111
    /// §4.1): no `Vary: *`, and every header its `Vary` names sent as when it was stored.
    static func selects(_ metadata: DiskCache.Metadata, requestHeaders: [String: String]) -> Bool {
        let varied = varyNames(metadata.responseHeaders["vary"])
        return !varied.contains("*") && varied.allSatisfy { requestHeaders[$0] == metadata.varyingRequestHeaders[$0] }
    }

    /// The decision for a complete response with `head`, fetched with `requestHeaders`, sent at
    /// `requestedAt` and received at `receivedAt` (the pipeline's clock).
    func storage(for head: FetchResponseHead, requestHeaders: [String: String],
                 requestedAt: Date, receivedAt: Date) -> Storage {
        guard [200, 203, 206].contains(head.statusCode) else { return .refuse(.status) }
        let metadata = Self.metadata(head.headers, requestHeaders: requestHeaders,
                                     requestedAt: requestedAt, receivedAt: receivedAt)
        return storage(for: metadata, receivedAt: receivedAt)
    }

    /// The same decision for metadata already in hand (a 304's refreshed headers).
    func storage(for metadata: DiskCache.Metadata, receivedAt: Date) -> Storage {
        let control = CacheControl(metadata.responseHeaders["cache-control"])
        if control.noStore { return .refuse(.noStore) }
        if Self.varyNames(metadata.responseHeaders["vary"]).contains("*") { return .refuse(.varyAll) }
        let hasValidator = metadata.etag != nil || metadata.lastModified != nil
        if !hasValidator {
            // Without a validator the entry can only ever be used while fresh.
            let freshness = ResponseFreshness(metadata, storedAt: receivedAt, policy: self, now: receivedAt)
            let mustAsk = (mode == .http && control.noCache) || (alwaysRevalidate && !control.immutable)
            if !freshness.isFresh || mustAsk { return .refuse(.notReusable) }
        }
        return .store(metadata)
    }

    /// The stored metadata after a 304 (RFC 9111 §4.3.4): the 304's fields replace the stored
    /// ones of the same name, and its times become the entry's, so freshness starts again.
    func refreshed(_ stored: DiskCache.Metadata, with head: FetchResponseHead, requestHeaders: [String: String],
                   requestedAt: Date, receivedAt: Date) -> DiskCache.Metadata {
        var merged = stored.responseHeaders
        if let etag = stored.etag, merged["etag"] == nil { merged["etag"] = etag }
        if let lastModified = stored.lastModified, merged["last-modified"] == nil { merged["last-modified"] = lastModified }
        for (name, value) in head.headers where Self.keptResponseFields.contains(name) { merged[name] = value }
        // The stored Date is the original response's: kept, it would age the entry from then
        // on. Without a Date of its own, the 304's time of receipt stands for it.
        if head.headers["date"] == nil { merged["date"] = nil }
        return Self.metadata(merged, requestHeaders: requestHeaders, requestedAt: requestedAt, receivedAt: receivedAt)
    }

    /// Whether a 304 confirms the entry made from `stored`: not when it names a different strong
    /// ETag (RFC 9111 §4.3.4: such a 304 selects no stored response, and must not update one).
    static func confirms(_ head: FetchResponseHead, _ stored: DiskCache.Metadata) -> Bool {
        guard let etag = (head.headers["etag"] ?? head.etag)?.trimmingCharacters(in: .whitespaces), !etag.hasPrefix("W/") else {
            return true
        }
        return etag == stored.etag
    }

    /// `If-None-Match` with the stored ETag and `If-Modified-Since` with the stored
    /// Last-Modified, whichever exist (a server that knows ETags judges by it, §13.2.2).
    static func conditionalHeaders(_ metadata: DiskCache.Metadata) -> [String: String] {
        var headers: [String: String] = [:]
        if let etag = metadata.etag { headers["If-None-Match"] = etag }
        if let lastModified = metadata.lastModified { headers["If-Modified-Since"] = lastModified }
        return headers
    }

    /// What is kept of a response: the fields that decide reuse, and the request's values of
    /// the fields its `Vary` names.
    static func metadata(_ responseHeaders: [String: String], requestHeaders: [String: String],
                         requestedAt: Date, receivedAt: Date) -> DiskCache.Metadata {
        let kept = responseHeaders.filter { keptResponseFields.contains($0.key) }
        var varying: [String: String] = [:]
        for name in varyNames(kept["vary"]) { varying[name] = requestHeaders[name] }
        return DiskCache.Metadata(etag: kept["etag"], lastModified: kept["last-modified"], responseHeaders: kept,
                                  varyingRequestHeaders: varying, requestedAt: requestedAt, receivedAt: receivedAt)
    }

    /// The lowercased field names a `Vary` value lists (`*` included as itself).
    static func varyNames(_ field: String?) -> [String] {
        guard let field else { return [] }
        return field.split(separator: ",").map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
    }
}
