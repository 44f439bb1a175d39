/// One operation of a MODEL-HTTP case: a header field of the response the server sends (all of
/// them are in place before the first use, in order), a use of the URL through a new loader, or
/// the server's switch to a refreshing answer. A case is one "sequence", so shrinking a failing
/// one removes header fields and uses and leaves the fewest that still diverge.
///
/// Times are offsets from the moment the case starts (`now`), because a loader cannot be made to
/// wait minutes: a `Date` in the past, an `Age`, an `Expires` relative to `Date` put a response
/// at any age, and the uses follow each other within a second or two. The values sit minutes
/// from each other, so no load time can carry a use across a freshness boundary; the reference
/// accepts both outcomes within `ReferencePrivateCache.boundarySlack` of one.
enum HTTPCaseOperation: Sendable, Hashable, CustomStringConvertible {
    /// One more directive in the `Cache-Control` field (joined with `, ` in order).
    case cacheControl(String)
    /// `Expires` at `Date` + `offset` seconds, in `form`.
    case expires(HTTPDateFormat, offset: Int64)
    /// An `Expires` that is no HTTP date.
    case invalidExpires(String)
    /// `Date` at `now` + `offset` seconds: the origin's clock elsewhere, or the response old.
    case date(offset: Int64)
    /// No `Date` at all: an origin without a clock.
    case omitDate
    /// `Age` of this many seconds.
    case age(Int64)
    /// `Last-Modified` at `now` + `offset` seconds (without it: when the route was installed).
    case lastModified(offset: Int64)
    /// No `ETag` or no `Last-Modified` (`field`).
    case omit(String)
    /// The server's entity tag sent weak (`W/"…"`); it still answers If-None-Match with 304.
    case weakEntityTag
    /// An `ETag` the server does not compare with: a conditional request gets a full 200.
    case foreignEntityTag
    /// A `Vary` field.
    case vary(String)
    /// A use of the URL: a new loader on the same context (an app restart) loads it.
    case use
    /// From the next request on, the server answers `Cache-Control: max-age=86400`, `Age: 0`,
    /// its own `Date` and the same validators: a 304 then makes the stored response fresh again.
    case refresh

    var description: String {
        switch self {
        case .cacheControl(let directive): "Cache-Control: \(directive)"
        case .expires(let form, let offset): "Expires: Date \(Self.signed(offset)) s (\(form))"
        case .invalidExpires(let value): "Expires: \(value) (no HTTP date)"
        case .date(let offset): "Date: now \(Self.signed(offset)) s"
        case .omitDate: "no Date"
        case .age(let seconds): "Age: \(seconds)"
        case .lastModified(let offset): "Last-Modified: now \(Self.signed(offset)) s"
        case .omit(let field): "no \(field)"
        case .weakEntityTag: "ETag: W/ + the server's tag (weak)"
        case .foreignEntityTag: "ETag: \"\(Self.foreignTag)\" (the server compares another: conditional requests get 200)"
        case .vary(let value): "Vary: \(value)"
        case .use: "use: a new loader on the same context loads the URL"
        case .refresh: "the server now answers Cache-Control: max-age=86400, Age: 0"
        }
    }

    /// 30 years of 365.25 days, in seconds.
    static let thirtyYears: Int64 = 946_728_000

    /// The opaque part of the entity tag `foreignEntityTag` sends.
    static let foreignTag = "not-the-servers-tag"

    private static func signed(_ value: Int64) -> String { value < 0 ? "− \(-value)" : "+ \(value)" }

    /// A case: one to five header fields (the first, in three cases of four, an explicit max-age,
    /// Expires, no-store or no-cache), two uses, and in a third of the cases a refresh and two more.
    /// `maxOperations` (the budget's) caps the length.
    static func generate(_ generator: inout SeededGenerator, maxOperations: Int) -> [HTTPCaseOperation] {
        let refreshes = Int.random(in: 0..<3, using: &generator) == 0
        // After a refresh, two uses: the first's 304 brings the new freshness, the second shows
        // whether the stored response took it in (served without a request) or stayed stale.
        let uses: [HTTPCaseOperation] = refreshes ? [.use, .use, .refresh, .use, .use] : [.use, .use]
        let fields = Int.random(in: 1...max(1, min(5, maxOperations - uses.count)), using: &generator)
        var operations = (0..<fields).map { _ in field(&generator) }
        // Most cases state their freshness: without max-age or Expires the RFC allows serving and
        // validating alike (heuristics), and such a case judges little.
        if Int.random(in: 0..<4, using: &generator) != 0 { operations[0] = explicitFreshness(&generator) }
        return operations + uses
    }

    private static func explicitFreshness(_ generator: inout SeededGenerator) -> HTTPCaseOperation {
        if Int.random(in: 0..<3, using: &generator) == 0 {
            let form = generator.pick(HTTPDateFormat.allCases.map { ($0, 1) })
            return .expires(form, offset: generator.pick([(-3600, 1), (0, 1), (600, 1), (86_400, 1)]))
        }
        // no-store and no-cache too: a case of their own often enough for the default budget.
        return .cacheControl(generator.pick([("max-age=0", 2), ("max-age=600", 2), ("max-age=3600", 1), ("max-age=86400", 2),
                                             ("no-store", 2), ("no-cache", 1)]))
    }

    private static func field(_ generator: inout SeededGenerator) -> HTTPCaseOperation {
        let kind = generator.pick([("cache-control", 10), ("expires", 3), ("invalid-expires", 1), ("date", 3),
                                   ("no-date", 1), ("age", 2), ("last-modified", 1), ("no-etag", 2),
                                   ("no-last-modified", 2), ("weak", 2), ("foreign", 1), ("vary", 1)])
        switch kind {
        case "cache-control":
            return .cacheControl(generator.pick([
                ("max-age=0", 3), ("max-age=30", 1), ("max-age=600", 2), ("max-age=3600", 2), ("max-age=86400", 2),
                ("max-age=\"600\"", 1), ("Max-Age=3600", 1), ("max-age=abc", 1), ("max-age=99999999999", 1),
                ("no-cache", 3), ("no-store", 2), ("must-revalidate", 2), ("private", 1), ("public", 1),
                ("s-maxage=0", 1), ("s-maxage=86400", 1), ("community=\"UCI\"", 1), ("x-imago-extension", 1),
                ("private=\"Set-Cookie\"", 1),
            ]))
        case "expires":
            // 30 years ahead: an RFC 850 two-digit year under 50 years ahead is this century's.
            let form = generator.pick(HTTPDateFormat.allCases.map { ($0, 1) })
            return .expires(form, offset: generator.pick([(-3600, 1), (0, 1), (600, 1), (86_400, 1), (Self.thirtyYears, 1)]))
        case "invalid-expires":
            return .invalidExpires(generator.pick([("0", 1), ("-1", 1), ("never", 1), ("Sun, 32 Nov 2026 08:49:37 GMT", 1)]))
        case "date": return .date(offset: generator.pick([(-86_400, 1), (-3600, 2), (-600, 1), (600, 1)]))
        case "no-date": return .omitDate
        case "age": return .age(generator.pick([(0, 1), (45, 1), (3000, 1), (7200, 1), (90_000, 1)]))
        case "last-modified": return .lastModified(offset: generator.pick([(-2_592_000, 1), (-3600, 1)]))
        case "no-etag": return .omit("ETag")
        case "no-last-modified": return .omit("Last-Modified")
        case "weak": return .weakEntityTag
        case "foreign": return .foreignEntityTag
        default: return .vary(generator.pick([("*", 1), ("Accept-Encoding", 1)]))
        }
    }
}
