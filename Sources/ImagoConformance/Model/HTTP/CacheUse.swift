/// What a private cache may do when its user asks again for a URL (RFC 9111 §4): serve the
/// stored response without a request, validate it with a conditional request, or fetch it anew.
/// More than one can be allowed where the RFC leaves latitude (heuristic freshness, readings of
/// malformed fields) or where the moment of use lies too near a freshness boundary to judge.
public struct CacheUse: Sendable, Hashable, CustomStringConvertible {
    /// Validators a conditional request must carry.
    public struct Validators: Sendable, Hashable {
        /// The stored `ETag`, exactly (with `W/` if weak), to send in `If-None-Match`: a MUST (§4.3.1).
        public var entityTag: String?
        /// The stored `Last-Modified`, to send in `If-Modified-Since`: a SHOULD (§4.3.1), required
        /// here only without an entity tag, since the request would otherwise not be conditional.
        public var lastModified: String?
        /// Validators to require: an entity tag and a Last-Modified value, each nil (default) for none.
        public init(entityTag: String? = nil, lastModified: String? = nil) {
            self.entityTag = entityTag
            self.lastModified = lastModified
        }

        /// Whether there is no validator to send.
        public var isEmpty: Bool { entityTag == nil && lastModified == nil }
    }

    /// Whether serving the stored response without any request is allowed.
    public var mayServeStored: Bool
    /// Whether a conditional request (carrying `validators`) is allowed.
    public var mayValidate: Bool
    /// Whether an unconditional request is allowed.
    public var mayFetch: Bool
    /// What a conditional request must carry (empty: nothing required of it).
    public var validators: Validators
    /// The rule the decision comes from: `HTTP-1` (storing) or `HTTP-2` (freshness, validation).
    public var rule: String
    /// Why, in a phrase: `fresh: max-age=600 > age 12 s`.
    public var reason: String

    /// A decision allowing what the flags say, requiring `validators` of a conditional request,
    /// coming from `rule` because of `reason`.
    public init(mayServeStored: Bool, mayValidate: Bool, mayFetch: Bool, validators: Validators, rule: String, reason: String) {
        self.mayServeStored = mayServeStored
        self.mayValidate = mayValidate
        self.mayFetch = mayFetch
        self.validators = validators
        self.rule = rule
        self.reason = reason
    }

    /// `serve the stored response without a request (fresh: …)`, or the requests allowed.
    public var description: String {
        var allowed: [String] = []
        if mayServeStored { allowed.append("no request (the stored response)") }
        if mayValidate {
            var carrying: [String] = []
            if let tag = validators.entityTag { carrying.append("If-None-Match: \(tag)") }
            if let date = validators.lastModified {
                carrying.append(validators.entityTag == nil ? "If-Modified-Since: \(date)" : "(optionally) If-Modified-Since: \(date)")
            }
            allowed.append(carrying.isEmpty ? "a conditional request" : "a conditional request with " + carrying.joined(separator: " "))
        }
        if mayFetch { allowed.append("an unconditional request") }
        return allowed.joined(separator: " or ") + " (\(reason))"
    }
}
