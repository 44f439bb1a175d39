import Foundation
import Testing
@testable import Imago

/// Negative caching's decision (`HTTPCachePolicy.failureMemory` and `repeatsFailure`), one row per
/// status and header combination, on the injected timeline of `PolicyClock`.
struct NegativeCachingPolicyTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        var policy: HTTPCachePolicy = .http
        var status = 404
        let headers: [String: String]
        /// Seconds between sending the request and receiving the response.
        var responseDelay: Double = 0
        /// Seconds it stays fresh after receipt; nil: not remembered at all.
        let freshFor: Double?
        /// Why it is not remembered (when `freshFor` is nil).
        var reason: DiskCacheOutcome.NotStoredReason = .notReusable
        var testDescription: String { name }
    }

    static let date = ["Date": PolicyClock.httpDate(offset: 0)]

    static let rows: [Row] = [
        Row(name: "404 with max-age is remembered for max-age", headers: ["Cache-Control": "max-age=60"].merging(date) { $1 },
            freshFor: 60),
        Row(name: "410 with Expires − Date", status: 410,
            headers: ["Expires": PolicyClock.httpDate(offset: 300)].merging(date) { $1 }, freshFor: 300),
        Row(name: "Age is subtracted", headers: ["Cache-Control": "max-age=60", "Age": "20"].merging(date) { $1 },
            freshFor: 40),
        Row(name: "the response delay is subtracted", headers: ["Cache-Control": "max-age=60"].merging(date) { $1 },
            responseDelay: 5, freshFor: 55),
        Row(name: "Age past max-age: stale on arrival", headers: ["Cache-Control": "max-age=60", "Age": "60"], freshFor: nil),
        Row(name: "404 with no freshness is never remembered (ERR-4)", headers: date, freshFor: nil),
        Row(name: "404 with no headers at all", headers: [:], freshFor: nil),
        Row(name: "heuristic: 10 % of Date − Last-Modified",
            headers: ["Last-Modified": PolicyClock.httpDate(offset: -1000)].merging(date) { $1 }, freshFor: 100),
        Row(name: "heuristic capped by maxHeuristicLifetime", policy: HTTPCachePolicy(maxHeuristicLifetime: .seconds(30)),
            headers: ["Last-Modified": PolicyClock.httpDate(offset: -1000)].merging(date) { $1 }, freshFor: 30),
        Row(name: "explicit max-age=0 beats the heuristic",
            headers: ["Cache-Control": "max-age=0", "Last-Modified": PolicyClock.httpDate(offset: -1000)], freshFor: nil),
        Row(name: "no-store", headers: ["Cache-Control": "no-store, max-age=60"], freshFor: nil, reason: .noStore),
        Row(name: "no-cache: a failure is never revalidated", headers: ["Cache-Control": "no-cache, max-age=60"], freshFor: nil),
        Row(name: "private is fine in a private cache", headers: ["Cache-Control": "private, max-age=60"], freshFor: 60),
        Row(name: "s-maxage is for shared caches", headers: ["Cache-Control": "s-maxage=60"], freshFor: nil),
        Row(name: "Vary: *", headers: ["Cache-Control": "max-age=60", "Vary": "*"], freshFor: nil, reason: .varyAll),
        Row(name: "500 never: stale-if-error's business, and RETRY-1 retries it", status: 500,
            headers: ["Cache-Control": "max-age=60"], freshFor: nil, reason: .status),
        Row(name: "503 never", status: 503, headers: ["Cache-Control": "max-age=60"], freshFor: nil, reason: .status),
        Row(name: "403 never: about the request, not the URL", status: 403, headers: ["Cache-Control": "max-age=60"],
            freshFor: nil, reason: .status),
        Row(name: "the aggressive mode lends no lifetime", policy: .aggressive, headers: date, freshFor: nil),
        Row(name: "a time to live lends no lifetime", policy: HTTPCachePolicy(timeToLive: .seconds(600)), headers: date,
            freshFor: nil),
        Row(name: "a time to live does not override the server's", policy: HTTPCachePolicy(timeToLive: .seconds(600)),
            headers: ["Cache-Control": "max-age=60"], freshFor: 60),
        Row(name: "alwaysRevalidate remembers nothing", policy: HTTPCachePolicy(alwaysRevalidate: true),
            headers: ["Cache-Control": "max-age=60"], freshFor: nil),
    ]

    @Test("what is remembered, and for how long", arguments: rows)
    func decision(_ row: Row) {
        let received = PolicyClock.received
        let decision = row.policy.failureMemory(
            for: PolicyClock.head(row.headers, status: row.status), requestHeaders: HTTPCachePolicy.sentRequestHeaders,
            requestedAt: received - row.responseDelay, receivedAt: received)
        guard let freshFor = row.freshFor else {
            #expect(decision == .forget(row.reason))
            return
        }
        guard case .remember(let metadata, let freshUntil) = decision else {
            Issue.record("not remembered: \(decision)")
            return
        }
        #expect(metadata.failureStatus == row.status)
        #expect(abs(freshUntil.timeIntervalSince(received) - freshFor) < 0.001)
        // The same rule at use: it repeats until just before freshUntil, never after.
        let repeats = { (elapsed: Double) in
            row.policy.repeatsFailure(metadata, storedAt: received, requestHeaders: HTTPCachePolicy.sentRequestHeaders,
                                      now: received + elapsed)
        }
        #expect(repeats(0))
        #expect(repeats(freshFor - 1))
        #expect(!repeats(freshFor))
        #expect(!repeats(freshFor + 3600))
    }

    @Test("a remembered failure answers only the request headers its Vary names")
    func varyIsHonoured() throws {
        let head = PolicyClock.head(["Cache-Control": "max-age=60", "Vary": "Accept-Encoding"], status: 404)
        let decision = HTTPCachePolicy.http.failureMemory(
            for: head, requestHeaders: ["accept-encoding": "identity"], requestedAt: PolicyClock.received,
            receivedAt: PolicyClock.received)
        guard case .remember(let metadata, _) = decision else { throw Failure.notRemembered("\(decision)") }
        #expect(HTTPCachePolicy.http.repeatsFailure(metadata, storedAt: PolicyClock.received,
                                                    requestHeaders: ["accept-encoding": "identity"], now: PolicyClock.received))
        #expect(!HTTPCachePolicy.http.repeatsFailure(metadata, storedAt: PolicyClock.received,
                                                     requestHeaders: ["accept-encoding": "gzip"], now: PolicyClock.received))
    }

    @Test("an image entry is never taken for a remembered failure")
    func imagesDoNotRepeat() {
        let image = HTTPCachePolicy.metadata(["cache-control": "max-age=60"], requestHeaders: [:],
                                             requestedAt: PolicyClock.received, receivedAt: PolicyClock.received)
        #expect(!HTTPCachePolicy.http.repeatsFailure(image, storedAt: PolicyClock.received,
                                                     requestHeaders: HTTPCachePolicy.sentRequestHeaders,
                                                     now: PolicyClock.received))
    }

    enum Failure: Error { case notRemembered(String) }
}
