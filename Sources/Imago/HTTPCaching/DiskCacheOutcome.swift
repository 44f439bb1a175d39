/// What the disk cache did for one load of a URL, as `ImageResponse.diskCache` reports it.
public enum DiskCacheOutcome: Sendable, Hashable, CustomStringConvertible {
    /// A fresh entry served the load; no request was made.
    case fresh
    /// A stale (or `no-cache`) entry was revalidated: the server answered 304 and the stored
    /// bytes served the load, their freshness refreshed.
    case revalidated
    /// A stale entry within its `stale-while-revalidate` window served the load at once; a
    /// revalidation runs in the background (`ImagePipeline.backgroundRevalidations`), and a
    /// later load sees what it brought.
    case staleRevalidating
    /// A stale entry within its `stale-if-error` window served the load because the origin
    /// failed (500, 502, 503, 504) or could not be reached, after the retries.
    case staleIfError
    /// The response was stored as a new entry.
    case stored
    /// The response replaced an entry the cache held for the URL (which was stale, did not match
    /// `Vary`, or changed on the server).
    case replaced
    /// The response was not stored, for this reason; a previous entry for the URL was removed.
    case notStored(NotStoredReason)

    /// Why a response was not written to disk.
    public enum NotStoredReason: String, Sendable, Hashable, CaseIterable {
        /// `Cache-Control: no-store`.
        case noStore
        /// `Vary: *`: no later request can be known to match.
        case varyAll
        /// A status a cache does not store here (only 200, 203 and a 206 completing a resumed
        /// download are).
        case status
        /// No freshness lifetime and no validator: it would be stale at once, with nothing to
        /// revalidate it with.
        case notReusable
        /// Larger than the disk cache's whole size limit.
        case tooLarge
        /// The disk write failed (no space, a quota, a read-only or removed directory); the
        /// image was still delivered from the bytes the network sent.
        case writeFailed
    }

    /// `fresh`, `revalidated`, `staleRevalidating`, `staleIfError`, `stored`, `replaced` or
    /// `notStored`: the CLI's vocabulary.
    public var description: String {
        switch self {
        case .fresh: "fresh"
        case .revalidated: "revalidated"
        case .staleRevalidating: "staleRevalidating"
        case .staleIfError: "staleIfError"
        case .stored: "stored"
        case .replaced: "replaced"
        case .notStored: "notStored"
        }
    }

    /// The reason a response was not stored, if it was not.
    public var notStoredReason: NotStoredReason? {
        if case .notStored(let reason) = self { return reason }
        return nil
    }
}
