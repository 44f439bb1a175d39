import Foundation

/// How long a stored response stays fresh and how old it is now (RFC 9111 §4.2), from what was
/// kept of it (`DiskCache.Metadata`) and the entry's `storedAt`. All times are the pipeline's
/// clock (`PipelineClock.now`); the server's `Date` is only ever compared with the server's own dates (`Expires`,
/// `Last-Modified`) or, for the apparent age, with the time of receipt.
struct ResponseFreshness: Equatable {
    /// Seconds the response is fresh for, from its generation at the origin. `.infinity` when
    /// the policy ignores freshness.
    let lifetime: Double
    /// Seconds since the origin generated it (§4.2.3), as of `now`.
    let currentAge: Double

    var isFresh: Bool { lifetime > currentAge }

    init(_ metadata: DiskCache.Metadata, storedAt: Date, policy: HTTPCachePolicy, now: Date) {
        let headers = metadata.responseHeaders
        let receivedAt = metadata.receivedAt ?? storedAt
        let requestedAt = min(metadata.requestedAt ?? receivedAt, receivedAt)
        let residentTime = max(0, now.timeIntervalSince(receivedAt))
        if let timeToLive = policy.timeToLive {
            // A configured lifetime counts from receipt (or the last 304): the server's opinion
            // of age, like that of lifetime, is what the override sets aside.
            lifetime = timeToLive.seconds
            currentAge = residentTime
            return
        }
        let dateValue = headers["date"].flatMap(HTTPDate.parse) ?? receivedAt
        let apparentAge = max(0, receivedAt.timeIntervalSince(dateValue))
        let responseDelay = receivedAt.timeIntervalSince(requestedAt)
        let correctedAgeValue = Double(Self.ageValue(headers["age"])) + responseDelay
        currentAge = max(apparentAge, correctedAgeValue) + residentTime
        switch policy.mode {
        case .aggressive:
            lifetime = .infinity
        case .http:
            lifetime = Self.lifetime(headers, dateValue: dateValue, cap: policy.maxHeuristicLifetime.seconds)
        }
    }

    /// §4.2.1: `max-age`, else `Expires` − `Date` (an invalid `Expires`, such as "0", is in the
    /// past), else the heuristic of §4.2.2, else zero.
    static func lifetime(_ headers: [String: String], dateValue: Date, cap: Double) -> Double {
        if let maxAge = CacheControl(headers["cache-control"]).maxAge { return Double(maxAge) }
        if let expires = headers["expires"] {
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(dateValue))
        }
        if let lastModified = headers["last-modified"].flatMap(HTTPDate.parse), lastModified <= dateValue {
            return min(0.1 * dateValue.timeIntervalSince(lastModified), cap)
        }
        return 0
    }

    /// The `Age` field's first member when it is a non-negative integer; otherwise the field is
    /// ignored (§5.1).
    static func ageValue(_ field: String?) -> Int {
        guard let first = field?.split(separator: ",", omittingEmptySubsequences: false).first else { return 0 }
        return CacheControl.deltaSeconds(String(first.trimmingSpaces)) ?? 0
    }
}
