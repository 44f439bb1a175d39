import ImagoConformance
import Testing

/// The HTTP caching reference (RFC 9111) against the RFCs' own examples and rules, before it
/// judges any loader.
@Suite struct ReferencePrivateCacheTests {
    /// 1994-11-06 08:49:37 UTC, the RFCs' example date.
    static let example: Int64 = 784_111_777
    /// Some moment in 2026, the reference's "now" for two-digit years.
    static let now: Int64 = 1_795_000_000

    @Test("RFC 9110 §5.6.7's example date in its three forms", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
    ])
    func parsesTheExampleDate(_ text: String) {
        #expect(HTTPDateFormat.parse(text, now: Self.now) == Self.example)
    }

    @Test("Each form formats what it parses", arguments: HTTPDateFormat.allCases)
    func roundTrips(_ form: HTTPDateFormat) {
        // Within 50 years of now, where an RFC 850 two-digit year is unambiguous.
        for seconds: Int64 in [Self.example, Self.now, 951_782_400 /* 2000-02-29 */, 3_000_000_000 /* 2065 */] {
            #expect(HTTPDateFormat.parse(form.format(seconds), now: Self.now) == seconds, "\(form.format(seconds))")
        }
        #expect(HTTPDateFormat.imfFixdate.format(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDateFormat.rfc850.format(Self.example) == "Sunday, 06-Nov-94 08:49:37 GMT")
        #expect(HTTPDateFormat.asctime.format(Self.example) == "Sun Nov  6 08:49:37 1994")
    }

    @Test("Invalid dates are no dates (an Expires recipient then takes them as expired)", arguments: [
        "0", "-1", "", "tomorrow", "Sun, 31 Feb 2026 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT",
    ])
    func rejectsInvalidDates(_ text: String) {
        #expect(HTTPDateFormat.parse(text, now: Self.now) == nil)
    }

    @Test("An RFC 850 year more than 50 years ahead is the past century's")
    func twoDigitYears() {
        // now is 2026-11: "26" is 2026, "76" 2076 (49 years ahead), "77" 1977 (2077 is over 50 years ahead).
        #expect(HTTPDateFormat.parse("Thursday, 01-Jan-26 00:00:00 GMT", now: Self.now) == 1_767_225_600)
        #expect(HTTPDateFormat.parse("Wednesday, 01-Jan-76 00:00:00 GMT", now: Self.now) == 3_345_062_400)
        #expect(HTTPDateFormat.parse("Saturday, 01-Jan-77 00:00:00 GMT", now: Self.now) == 220_924_800)
    }

    @Test("Cache-Control directives: case, quotes, commas inside quotes, delta-seconds")
    func directives() {
        let parsed = CacheControlDirectives(["Max-Age=\"60\", private=\"a, b\"", "NO-CACHE, community=UCI"])
        #expect(parsed.directives.map(\.name) == ["max-age", "private", "no-cache", "community"])
        #expect(parsed.arguments("max-age") == ["60"])
        #expect(parsed.arguments("private") == ["a, b"])
        #expect(CacheControlDirectives.deltaSeconds("99999999999999") == 2_147_483_648)
        #expect(CacheControlDirectives.deltaSeconds("-1") == nil)
        #expect(CacheControlDirectives.deltaSeconds("1.5") == nil)
        #expect(CacheControlDirectives.deltaSeconds("007") == 7)
    }

    /// A cache that received `fields` (a 200) for a request sent at t = 1000 s and answered at 1001 s.
    private func cache(_ fields: [(String, String)]) -> ReferencePrivateCache {
        var cache = ReferencePrivateCache()
        let date = ("Date", HTTPDateFormat.imfFixdate.format(1000))
        let all = (fields.contains { $0.0 == "Date" } ? fields : [date] + fields).map { StoredHTTPResponse.Field($0.0, $0.1) }
        cache.received(StoredHTTPResponse(fields: all, requestTime: 1000, responseTime: 1001))
        return cache
    }

    @Test("no-store is never stored: the next use fetches, by HTTP-1")
    func noStore() {
        let use = cache([("Cache-Control", "max-age=600, no-store"), ("ETag", "\"a\"")]).use(at: 1002)
        #expect(!use.mayServeStored && !use.mayValidate && use.mayFetch)
        #expect(use.rule == "HTTP-1")
    }

    @Test("max-age wins over Expires; s-maxage is a shared cache's")
    func maxAgeOverExpires() {
        let expires = HTTPDateFormat.imfFixdate.format(1000 + 86_400)
        #expect(!cache([("Cache-Control", "max-age=0"), ("Expires", expires), ("ETag", "\"a\"")]).use(at: 1002).mayServeStored)
        #expect(cache([("Cache-Control", "max-age=600, s-maxage=0")]).use(at: 1100).mayServeStored)
        // s-maxage alone is no explicit freshness for a private cache: heuristics decide.
        let sharedOnly = cache([("Cache-Control", "s-maxage=0"), ("ETag", "\"a\"")]).use(at: 1002)
        #expect(sharedOnly.mayServeStored && sharedOnly.mayValidate)
    }

    @Test("Expires in each form, against Date", arguments: HTTPDateFormat.allCases)
    func expires(_ form: HTTPDateFormat) {
        let cache = cache([("Expires", form.format(1000 + 600)), ("ETag", "\"a\"")])
        #expect(cache.use(at: 1100) == CacheUse(mayServeStored: true, mayValidate: false, mayFetch: false,
                                                validators: .init(entityTag: "\"a\""), rule: "HTTP-2",
                                                reason: "fresh: Expires − Date = 600 s > age 100 s"))
        #expect(!cache.use(at: 1700).mayServeStored && cache.use(at: 1700).mayValidate)
    }

    @Test("An invalid Expires is already stale", arguments: ["0", "-1", "soon"])
    func invalidExpires(_ value: String) {
        let use = cache([("Expires", value), ("Last-Modified", HTTPDateFormat.imfFixdate.format(0))]).use(at: 1002)
        #expect(!use.mayServeStored && use.mayValidate && !use.mayFetch)
        #expect(use.validators.lastModified == HTTPDateFormat.imfFixdate.format(0))
    }

    @Test("Age counts from Date, the Age field and the response delay (§4.2.3)")
    func currentAge() {
        var response = StoredHTTPResponse(fields: [.init("Date", HTTPDateFormat.imfFixdate.format(700))],
                                          requestTime: 1000, responseTime: 1001)
        #expect(response.currentAge(at: 1011) == 311)  // apparent age 301 + 10 resident
        response.fields.append(.init("Age", "500"))
        #expect(response.currentAge(at: 1011) == 511)  // Age 500 + delay 1 + 10 resident
        #expect(!cache([("Cache-Control", "max-age=3600"), ("Age", "7200"), ("ETag", "\"a\"")]).use(at: 1002).mayServeStored)
    }

    @Test("no-cache validates every use, with the ETag (weak as sent) and Last-Modified")
    func noCache() {
        let modified = HTTPDateFormat.imfFixdate.format(10)
        let use = cache([("Cache-Control", "no-cache, max-age=86400"), ("ETag", "W/\"v1\""), ("Last-Modified", modified)])
            .use(at: 1002)
        #expect(!use.mayServeStored && use.mayValidate && !use.mayFetch)
        #expect(use.validators == CacheUse.Validators(entityTag: "W/\"v1\"", lastModified: modified))
    }

    @Test("Where the RFC leaves latitude, each permitted outcome is allowed", arguments: [
        "max-age=abc", "max-age=600, max-age=0", "max-age=\"600\", max-age=0",
    ])
    func latitude(_ cacheControl: String) {
        let use = cache([("Cache-Control", cacheControl), ("ETag", "\"a\"")]).use(at: 1002)
        #expect(use.mayServeStored && use.mayValidate)
    }

    @Test("No explicit freshness: heuristics may serve it or validate it; quoted max-age is read")
    func heuristics() {
        let use = cache([("ETag", "\"a\"")]).use(at: 1002)
        #expect(use.mayServeStored && use.mayValidate && !use.mayFetch)
        #expect(!cache([("Cache-Control", "max-age=\"0\""), ("ETag", "\"a\"")]).use(at: 1002).mayServeStored)
    }

    @Test("Near a boundary both outcomes are allowed, far from it only one")
    func boundary() {
        let cache = cache([("Cache-Control", "max-age=600"), ("ETag", "\"a\"")])
        #expect(cache.use(at: 1590).mayServeStored && cache.use(at: 1590).mayValidate)
        #expect(cache.use(at: 1500).mayServeStored && !cache.use(at: 1500).mayValidate)
        #expect(!cache.use(at: 1700).mayServeStored)
    }

    @Test("A 304 with a new max-age makes the entry fresh again; a 200 replaces it")
    func updates() {
        var cache = cache([("Cache-Control", "max-age=0"), ("ETag", "\"a\"")])
        cache.received(StoredHTTPResponse(status: 304, fields: [.init("Cache-Control", "max-age=600"),
                                                               .init("Date", HTTPDateFormat.imfFixdate.format(2000))],
                                          requestTime: 2000, responseTime: 2000))
        #expect(cache.use(at: 2010).mayServeStored && !cache.use(at: 2010).mayValidate)
        #expect(cache.entry?.values("ETag") == ["\"a\""])
        cache.received(StoredHTTPResponse(fields: [.init("ETag", "\"b\""), .init("Cache-Control", "no-cache")],
                                          requestTime: 2020, responseTime: 2020))
        #expect(cache.use(at: 2021).validators.entityTag == "\"b\"")
    }

    @Test("Vary: * needs a request every time; other Vary values do not matter here")
    func vary() {
        let star = cache([("Cache-Control", "max-age=600"), ("Vary", "Accept, *")]).use(at: 1002)
        #expect(!star.mayServeStored && star.mayValidate && star.mayFetch)
        #expect(cache([("Cache-Control", "max-age=600"), ("Vary", "Accept-Encoding")]).use(at: 1002).mayServeStored)
    }
}
