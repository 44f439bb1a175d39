/// The reference for HTTP caching: what a private cache (RFC 9111) holding one URL may do on each
/// use, and how each response the origin sends changes what it holds. Written from the RFC
/// (RFC 9110 for dates and validators), not from any loader's code, so a loader can be judged
/// against it. Every decision it is unsure of (heuristics, a moment within `boundarySlack` of a
/// freshness boundary, readings the RFC leaves open) allows each outcome the RFC permits.
public struct ReferencePrivateCache: Sendable {
    /// The stored response, if any.
    public private(set) var entry: StoredHTTPResponse?
    /// Why the last full response was not stored, if it was not.
    public private(set) var lastRefusal: String?
    /// Seconds either side of a freshness boundary within which both fresh and stale are
    /// accepted (default 10): the server's `Date` has whole seconds, and a loader measures the
    /// response's arrival a little before or after the model does, more so on a busy machine.
    public let boundarySlack: Double

    /// An empty cache judging freshness to within `boundarySlack` seconds (default 10).
    public init(boundarySlack: Double = 10) { self.boundarySlack = boundarySlack }

    /// What the cache may do when the URL is used at `now`.
    public func use(at now: Double) -> CacheUse {
        guard let entry else {
            return CacheUse(mayServeStored: false, mayValidate: false, mayFetch: true, validators: .init(),
                            rule: lastRefusal == nil ? "HTTP-2" : "HTTP-1",
                            reason: lastRefusal.map { "nothing stored: \($0)" } ?? "nothing stored")
        }
        let validators = CacheUse.Validators(entityTag: entry.values("ETag").first, lastModified: entry.values("Last-Modified").first)
        if entry.variesOnEverything {
            // Never selected again (§4.1), but its validators may still go in a request (§4.3.1).
            return CacheUse(mayServeStored: false, mayValidate: true, mayFetch: true, validators: .init(),
                            rule: "HTTP-2", reason: "Vary: * never matches a later request")
        }
        func revalidation(_ reason: String, mayServeStored: Bool = false) -> CacheUse {
            CacheUse(mayServeStored: mayServeStored, mayValidate: !validators.isEmpty, mayFetch: validators.isEmpty,
                     validators: validators, rule: "HTTP-2",
                     reason: reason + (validators.isEmpty ? "; no validator stored" : ""))
        }
        if entry.requiresValidation { return revalidation("Cache-Control: no-cache: validate every use") }
        let age = entry.currentAge(at: now)
        var fresh: [String] = []
        var stale: [String] = []
        for lifetime in entry.lifetimes {
            switch lifetime {
            case .heuristic(let because):
                fresh.append(because)
                stale.append(because)
            case .explicit(let seconds, let because):
                let lifetime = Double(seconds)
                if seconds > 0 && abs(lifetime - age) <= boundarySlack {
                    let near = "\(because) within \(Int(boundarySlack)) s of age \(Int(age)) s"
                    fresh.append(near)
                    stale.append(near)
                } else if lifetime > age {
                    fresh.append("fresh: \(because) > age \(Int(age)) s")
                } else {
                    stale.append("stale: \(because) ≤ age \(Int(age)) s")
                }
            }
        }
        let reason = Array(Set(fresh + stale)).sorted().joined(separator: "; ")
        if stale.isEmpty {
            return CacheUse(mayServeStored: true, mayValidate: false, mayFetch: false, validators: validators,
                            rule: "HTTP-2", reason: reason)
        }
        return revalidation(reason, mayServeStored: !fresh.isEmpty)
    }

    /// Takes in what the origin answered: a 304 updates the stored response (§4.3.4; one to an
    /// unconditional request, with nothing stored, changes nothing); any other response replaces
    /// it when it may be stored (§4.3.3) and otherwise leaves nothing stored.
    public mutating func received(_ response: StoredHTTPResponse) {
        if response.status == 304 {
            entry = entry?.updated(by: response)
            return
        }
        lastRefusal = response.refusalToStore
        entry = lastRefusal == nil ? response : nil
    }
}
