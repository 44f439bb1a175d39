/// A response as the reference cache model keeps it (RFC 9111): status, header fields, and when
/// the request went out and the response came back on the cache's clock. It answers the
/// questions of §3 (may it be stored), §4.2.1 (its freshness lifetime) and §4.2.3 (its age).
/// Times are seconds since 1970 on one clock.
public struct StoredHTTPResponse: Sendable, Hashable {
    /// One header field line.
    public struct Field: Sendable, Hashable {
        /// The name as sent (compared case-insensitively).
        public var name: String
        /// The value as sent.
        public var value: String
        /// A field line `name: value`.
        public init(_ name: String, _ value: String) { self.name = name; self.value = value }
    }

    /// One reading of a response's freshness lifetime (§4.2.1). Where the RFC leaves a choice
    /// (duplicated or invalid `max-age`, heuristics), a response has several, and a cache may
    /// follow any of them.
    public enum Lifetime: Sendable, Hashable {
        /// Explicit: `max-age`, `Expires` − `Date`, or 0 for invalid freshness information.
        case explicit(Int64, because: String)
        /// No explicit lifetime: a cache may assign a heuristic one (§4.2.2), any, or none.
        case heuristic(because: String)
    }

    /// The status code.
    public var status: Int
    /// The header fields, in order.
    public var fields: [Field]
    /// When the request that brought it was sent (`request_time`).
    public var requestTime: Double
    /// When it arrived (`response_time`).
    public var responseTime: Double

    /// A response received at `responseTime` for a request sent at `requestTime`.
    public init(status: Int = 200, fields: [Field], requestTime: Double, responseTime: Double) {
        self.status = status
        self.fields = fields
        self.requestTime = requestTime
        self.responseTime = responseTime
    }

    /// The values of every field line named `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The Cache-Control directives of all its Cache-Control lines.
    public var cacheControl: CacheControlDirectives { CacheControlDirectives(values("Cache-Control")) }

    /// Statuses heuristically cacheable by default (RFC 9110 §15.1).
    public static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Why a private cache must not store it (§3), or nil when it may. `Vary` other than `*` is
    /// no obstacle: a single user's image cache repeats the same request header fields.
    public var refusalToStore: String? {
        let directives = cacheControl
        if directives.has("no-store") { return "Cache-Control: no-store forbids storing it (RFC 9111 §5.2.2.5)" }
        if !(200...599).contains(status) || status == 206 || status == 304 {
            return "status \(status) is not a complete final response a cache understands"
        }
        // §3: a private cache may store it if any of these allows it (s-maxage only for shared caches).
        let explicit = directives.has("max-age") || directives.has("public") || !values("Expires").isEmpty
        if !explicit && !Self.heuristicallyCacheable.contains(status) {
            return "status \(status) is not cacheable by default and has no explicit freshness"
        }
        return nil
    }

    /// Whether `Vary` holds `*`: the stored response then never matches a request (§4.1).
    public var variesOnEverything: Bool {
        values("Vary").flatMap { $0.split(separator: ",") }.contains { String($0).trimmingHTTPWhitespace() == "*" }
    }

    /// Whether `Cache-Control` forbids using it without validating (`no-cache`, §5.2.2.4).
    /// The qualified form `no-cache="field"` counts too: it may only be served without validation
    /// with those fields removed, and an image loader has no fields to remove them from.
    public var requiresValidation: Bool { cacheControl.has("no-cache") }

    /// The `Date` value, or the time of arrival when absent or invalid (RFC 9110 §6.6.1).
    public var dateValue: Double {
        values("Date").first.flatMap { HTTPDateFormat.parse($0, now: Int64(responseTime)) }.map { Double($0) } ?? responseTime
    }

    /// `current_age` at `now` (§4.2.3).
    public func currentAge(at now: Double) -> Double {
        let ageValue = values("Age").first.flatMap { CacheControlDirectives.deltaSeconds($0.trimmingHTTPWhitespace()) } ?? 0
        let apparentAge = max(0, responseTime - dateValue)
        let responseDelay = responseTime - requestTime
        let correctedAgeValue = Double(ageValue) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        return correctedInitialAge + (now - responseTime)
    }

    /// Every permitted reading of its freshness lifetime (§4.2.1); `s-maxage` is for shared caches
    /// and ignored. Invalid `max-age` may be taken as stale (the RFC encourages it) or ignored;
    /// several differing `max-age` values as the first one or as stale.
    public var lifetimes: [Lifetime] {
        let maxAges = cacheControl.arguments("max-age")
        guard !maxAges.isEmpty else { return [expiresLifetime] }
        let values = maxAges.map(CacheControlDirectives.deltaSeconds)
        if values.contains(nil) {
            return [.explicit(0, because: "an invalid max-age is stale"), expiresLifetime]
        }
        let seconds = values.compactMap { $0 }
        if Set(seconds).count == 1 { return [.explicit(seconds[0], because: "max-age=\(seconds[0])")] }
        return [.explicit(seconds[0], because: "the first of several max-age values, \(seconds[0])"),
                .explicit(0, because: "several differing max-age values read as stale")]
    }

    /// The lifetime without `max-age`: `Expires` − `Date`, 0 when `Expires` is invalid, else heuristic.
    private var expiresLifetime: Lifetime {
        let expires = values("Expires")
        guard let first = expires.first else {
            return .heuristic(because: "no max-age or Expires: heuristic freshness")
        }
        guard expires.count == 1 else { return .explicit(0, because: "several Expires lines read as stale") }
        guard let expiry = HTTPDateFormat.parse(first, now: Int64(responseTime)) else {
            return .explicit(0, because: "an invalid Expires (\(first)) means already expired")
        }
        let lifetime = max(0, Int64((Double(expiry) - dateValue).rounded(.down)))
        return .explicit(lifetime, because: "Expires − Date = \(lifetime) s")
    }

    /// This response with the fields of `notModified` (a 304) in place of its own (§3.2, §4.3.4),
    /// and the 304's exchange times: the validation is the newest word from the origin.
    public func updated(by notModified: StoredHTTPResponse) -> StoredHTTPResponse {
        // Content-Length describes the 304's own (empty) content; the rest are hop-by-hop (§3.1).
        let excluded: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]
        let replaced = Set(notModified.fields.map { $0.name.lowercased() }).subtracting(excluded)
        var updated = self
        updated.fields = fields.filter { !replaced.contains($0.name.lowercased()) }
            + notModified.fields.filter { replaced.contains($0.name.lowercased()) }
        updated.requestTime = notModified.requestTime
        updated.responseTime = notModified.responseTime
        return updated
    }
}
