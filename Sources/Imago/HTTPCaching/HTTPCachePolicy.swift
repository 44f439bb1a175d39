import Foundation

/// How the disk cache treats what servers say about their responses (RFC 9111, for a private
/// cache): whether a response may be stored, and whether a stored one may be used without
/// asking the server, must be revalidated first, or cannot be used at all.
///
/// Whatever the policy, a response marked `no-store` is never written to disk (rule HTTP-1: it
/// is the server's word on privacy, not on freshness), and a stale entry is used without a 304
/// from the server only where the server allowed it (RFC 5861's `stale-while-revalidate` and
/// `stale-if-error`, see `servesStale`).
public struct HTTPCachePolicy: Sendable, Hashable, CustomStringConvertible {
    /// Where freshness comes from.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Honour the response: storable unless `no-store`, `Vary: *` or impossible to reuse
        /// (no freshness and no validator); fresh for `max-age`, else `Expires` − `Date`, else a
        /// heuristic of 10 % of the time since `Last-Modified` (at most `maxHeuristicLifetime`);
        /// `no-cache` revalidates every use.
        case http
        /// Store every image response (except `no-store` and `Vary: *`) and reuse it without asking, as Nuke's
        /// DataCache and Kingfisher do: the server's freshness is ignored on purpose (HTTP-2
        /// lets a loader do so when it says so).
        case aggressive
    }

    /// Default `.http`.
    public var mode: Mode
    /// When set, every storable response is fresh for exactly this long after it was received
    /// (or last revalidated), whatever its `max-age`, `Expires` or `Last-Modified` say, in both
    /// modes; `no-cache` still means revalidating every use in `.http` mode. Default nil: the
    /// mode decides.
    public var timeToLive: Duration?
    /// Revalidate every use, however fresh the entry (a conditional request each time, a 304
    /// serving the stored bytes), except a response marked `immutable` while it is fresh.
    /// Default false.
    public var alwaysRevalidate: Bool
    /// The cap on heuristic freshness, for responses with `Last-Modified` and no explicit
    /// lifetime. Default 24 hours (RFC 9111 §4.2.2 suggests 10 % of the age, and caches cap it
    /// so that a file untouched for years is not trusted for months).
    public var maxHeuristicLifetime: Duration
    /// Honour `stale-while-revalidate=N` and `stale-if-error=N` (RFC 5861): up to N seconds past
    /// its freshness, a stale entry serves at once while it is revalidated in the background
    /// (`DiskCacheOutcome.staleRevalidating`), or serves when the origin answers 500, 502, 503
    /// or 504 or cannot be reached (`DiskCacheOutcome.staleIfError`). Never with `no-cache`,
    /// `must-revalidate` or `alwaysRevalidate`. Default true; false: a stale entry is never
    /// used without a 304.
    public var servesStale: Bool

    /// A policy with every default: `.http` mode, no time to live, no forced revalidation, a
    /// 24-hour cap on heuristic freshness, and stale content served where the server allows it.
    public init(mode: Mode = .http, timeToLive: Duration? = nil, alwaysRevalidate: Bool = false,
                maxHeuristicLifetime: Duration = .seconds(86_400), servesStale: Bool = true) {
        self.mode = mode
        self.timeToLive = timeToLive
        self.alwaysRevalidate = alwaysRevalidate
        self.maxHeuristicLifetime = maxHeuristicLifetime
        self.servesStale = servesStale
    }

    /// Honour the response's headers (the default).
    public static let http = HTTPCachePolicy()
    /// Store everything (except `no-store`), reuse without asking.
    public static let aggressive = HTTPCachePolicy(mode: .aggressive)

    /// The mode and any overrides, comma-separated, for logs and reports: e.g. `http`,
    /// `aggressive, ttl 60.0 s`, `http, always revalidate`, `http, never stale` (the heuristic
    /// cap is not shown).
    public var description: String {
        var parts = [mode.rawValue]
        if let timeToLive { parts.append("ttl \(timeToLive.seconds) s") }
        if alwaysRevalidate { parts.append("always revalidate") }
        if !servesStale { parts.append("never stale") }
        return parts.joined(separator: ", ")
    }

    /// The request header fields every fetch sends whatever the transport (both built-in ones
    /// set `Accept-Encoding: identity`; the pipeline adds none that `Vary` could name, only
    /// conditionals and Range): what `Vary` is matched against. Names lowercased.
    static let sentRequestHeaders = ["accept-encoding": "identity"]

    /// The response header fields kept with an entry: those that decide reuse.
    static let keptResponseFields: Set<String> = ["cache-control", "expires", "date", "age", "vary",
                                                  "etag", "last-modified", "content-type"]
}
