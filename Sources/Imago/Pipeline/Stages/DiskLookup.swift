import Foundation

/// What the disk cache held for a source before its fetch, and what the fetch asks the server
/// because of it.
struct DiskLookup: Sendable {
    /// An entry fresh enough to serve without asking the server (nil: none, or not read).
    var fresh: DiskCache.Entry?
    /// The stale (or `no-cache`) entry's metadata, when the fetch revalidates it.
    var revalidating: DiskCache.Metadata?
    /// `If-None-Match` / `If-Modified-Since` for that revalidation (empty: a plain fetch).
    var conditionalHeaders: [String: String] = [:]
    /// A stale entry within its `stale-while-revalidate` window: it serves the load at once and
    /// is revalidated in the background (`BackgroundRevalidations`) with `conditionalHeaders`.
    var staleRevalidating: DiskCache.Entry?
    /// A stale entry within its `stale-if-error` window: it serves the load should the fetch
    /// end in an error that window covers (`HTTPCachePolicy.coversOrigin(failure:)`).
    var staleIfError: DiskCache.Entry?
    /// The status of a fresh remembered failure (404 or 410): the load fails with it at once,
    /// without a request (negative caching, `HTTPCachePolicy.repeatsFailure`).
    var rememberedFailure: Int?
    /// Whether an entry for the source existed (nil: the request does not read the disk, or
    /// what it found is no longer known; the store then looks again).
    var hadEntry: Bool?

    /// The one rule for a 304 that confirms nothing usable (it names another strong ETag, the
    /// entry was evicted or replaced since the lookup, or the bytes it confirmed do not decode
    /// and were removed): ask again, unconditionally, once. The lookup for that request, or nil
    /// when this one already asked unconditionally (a plain request answered 304 is a failure).
    func askingUnconditionally() -> DiskLookup? {
        revalidating == nil ? nil : DiskLookup(staleIfError: staleIfError)
    }
}

/// A completed transport fetch and when it ran, by the pipeline's clock (RFC 9111's request
/// and response times, for the age of what is stored).
struct Exchange: Sendable {
    let result: FetchResult
    let requestedAt: Date
    let receivedAt: Date
}

/// A transport fetch that failed, and when it ran, by the pipeline's clock: a failing status's
/// head (`FetchError.httpStatus`'s) is judged for negative caching with these times.
struct FailedExchange: Error {
    let error: FetchError
    let requestedAt: Date
    let receivedAt: Date
}
