import Foundation
import XCTest
@testable import Imago

/// RFC 9111 for a private cache, one row per header combination and elapsed time, on an
/// injected timeline (`PolicyClock`): what is stored, and what a later load does with it.
final class HTTPCachePolicyTableTests: XCTestCase {
    /// What a later load should do.
    enum Expected: Equatable {
        case fresh
        /// Revalidate with exactly these conditional headers.
        case revalidate([String: String])
        case refetch
        /// Use it at once, revalidating in the background with exactly these headers (RFC 5861).
        case staleWhileRevalidate([String: String])
        /// The response is not stored at all, for this reason.
        case notStored(DiskCacheOutcome.NotStoredReason)
    }

    struct Row {
        let name: String
        var policy: HTTPCachePolicy = .http
        var status = 200
        let headers: [String: String]
        /// Seconds between sending the request and receiving the response.
        var responseDelay: Double = 0
        /// Seconds after receipt when the stored entry is looked at.
        let elapsed: Double
        /// Request headers sent with the later load (Imago's own unless a row varies them).
        var laterRequest: [String: String] = HTTPCachePolicy.sentRequestHeaders
        let expected: Expected
    }

    static let etag = "\"v1\""
    static let validator = ["If-None-Match": etag]
    static let lastModified = PolicyClock.httpDate(offset: -1000)

    /// Near misses of a date a day after `PolicyClock.received` (Wed, 15 Nov 2023 22:13:20 GMT):
    /// none is one of the three forms, so each is in the past (RFC 9111 §5.3), however close.
    static let invalidExpires = [
        "-1", "Wed, 15 Nov 2023 22:13:20 UTC", "Wed, 15 Nov 2023 22:13:20 +0000", "Wed, 15 Nov 2023 22:13:20",
        "wed, 15 nov 2023 22:13:20 gmt", "Wed, 15 Nov 23 22:13:20 GMT", "Wed, 15-Nov-2023 22:13:20 GMT",
        "Wednesday, 15 Nov 2023 22:13:20 GMT", "Wednesday, 15-Nov-23 22:13:20", "Wed Nov 15 22:13:20 2023 GMT",
        "Wed, 31 Nov 2023 22:13:20 GMT", "Wed, 15 Nov 2023 24:13:20 GMT", "Wed,15 Nov 2023 22:13:20 GMT",
        "2023-11-15T22:13:20Z", "1700086400", "Wednesday, 15-Nov-2023 22:13:20 GMT", "Wed, 15-Nov-23 22:13:20 GMT",
        "wed nov 15 22:13:20 2023", "Wed Nov 15 22:13 2023", "Wed, 15 Nov 2023 22:13:20 GMT, Thu",
    ]

    static let rows: [Row] = invalidExpires.map { expires in
        Row(name: "Expires \"\(expires)\" is in the past", headers: ["Expires": expires, "Date": PolicyClock.httpDate(offset: 0), "ETag": etag],
            elapsed: 0, expected: .revalidate(validator))
    } + staleRows + [
        // max-age
        Row(name: "max-age, just fresh", headers: ["Cache-Control": "max-age=60", "ETag": etag], elapsed: 59, expected: .fresh),
        Row(name: "max-age, just stale", headers: ["Cache-Control": "max-age=60", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "max-age quoted", headers: ["Cache-Control": "max-age=\"60\"", "ETag": etag], elapsed: 59, expected: .fresh),
        Row(name: "max-age case-insensitive", headers: ["Cache-Control": "Max-Age=60", "ETag": etag], elapsed: 59, expected: .fresh),
        Row(name: "max-age invalid is stale", headers: ["Cache-Control": "max-age=abc", "ETag": etag], elapsed: 0, expected: .revalidate(validator)),
        Row(name: "max-age twice, different: stale", headers: ["Cache-Control": "max-age=60, max-age=120", "ETag": etag], elapsed: 1, expected: .revalidate(validator)),
        Row(name: "max-age=0", headers: ["Cache-Control": "max-age=0", "ETag": etag], elapsed: 0, expected: .revalidate(validator)),
        Row(name: "max-age beats Expires", headers: ["Cache-Control": "max-age=10", "Expires": PolicyClock.httpDate(offset: 1000), "Date": PolicyClock.httpDate(offset: 0), "ETag": etag], elapsed: 11, expected: .revalidate(validator)),
        Row(name: "s-maxage is for shared caches", headers: ["Cache-Control": "s-maxage=600", "ETag": etag], elapsed: 1, expected: .revalidate(validator)),
        // Age and the response delay (§4.2.3)
        Row(name: "Age counts, fresh", headers: ["Cache-Control": "max-age=60", "Age": "30", "ETag": etag], elapsed: 29, expected: .fresh),
        Row(name: "Age counts, stale", headers: ["Cache-Control": "max-age=60", "Age": "30", "ETag": etag], elapsed: 31, expected: .revalidate(validator)),
        Row(name: "Age list: first member", headers: ["Cache-Control": "max-age=60", "Age": "30, 5", "ETag": etag], elapsed: 31, expected: .revalidate(validator)),
        Row(name: "Age invalid is ignored", headers: ["Cache-Control": "max-age=60", "Age": "soon", "ETag": etag], elapsed: 59, expected: .fresh),
        Row(name: "response delay is added to Age", headers: ["Cache-Control": "max-age=60", "Age": "0", "ETag": etag], responseDelay: 5, elapsed: 56, expected: .revalidate(validator)),
        Row(name: "response delay, still fresh", headers: ["Cache-Control": "max-age=60", "ETag": etag], responseDelay: 5, elapsed: 54, expected: .fresh),
        Row(name: "apparent age from a Date in the past", headers: ["Cache-Control": "max-age=60", "Date": PolicyClock.httpDate(offset: -50), "ETag": etag], elapsed: 11, expected: .revalidate(validator)),
        Row(name: "apparent age, still fresh", headers: ["Cache-Control": "max-age=60", "Date": PolicyClock.httpDate(offset: -50), "ETag": etag], elapsed: 9, expected: .fresh),
        Row(name: "a Date in the future is no negative age", headers: ["Cache-Control": "max-age=60", "Date": PolicyClock.httpDate(offset: 3600), "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        // Expires against Date
        Row(name: "Expires - Date, fresh", headers: ["Expires": PolicyClock.httpDate(offset: 100), "Date": PolicyClock.httpDate(offset: 0), "ETag": etag], elapsed: 99, expected: .fresh),
        Row(name: "Expires - Date, stale", headers: ["Expires": PolicyClock.httpDate(offset: 100), "Date": PolicyClock.httpDate(offset: 0), "ETag": etag], elapsed: 101, expected: .revalidate(validator)),
        Row(name: "Expires against a server clock ahead of ours", headers: ["Expires": PolicyClock.httpDate(offset: 3700), "Date": PolicyClock.httpDate(offset: 3600), "ETag": etag], elapsed: 99, expected: .fresh),
        Row(name: "a server clock behind ours ages the response", headers: ["Expires": PolicyClock.httpDate(offset: 100 - 3600), "Date": PolicyClock.httpDate(offset: -3600), "ETag": etag], elapsed: 0, expected: .revalidate(validator)),
        Row(name: "Expires without Date: time of receipt", headers: ["Expires": PolicyClock.httpDate(offset: 100), "ETag": etag], elapsed: 99, expected: .fresh),
        Row(name: "Expires \"0\" is in the past", headers: ["Expires": "0", "ETag": etag], elapsed: 0, expected: .revalidate(validator)),
        Row(name: "Expires in RFC 850 form", headers: ["Expires": "Wednesday, 15-Nov-23 22:13:20 GMT", "Date": PolicyClock.httpDate(offset: 0), "ETag": etag], elapsed: 86_399, expected: .fresh),
        Row(name: "Expires in asctime form", headers: ["Expires": "Wed Nov 15 22:13:20 2023", "Date": PolicyClock.httpDate(offset: 0), "ETag": etag], elapsed: 86_401, expected: .revalidate(validator)),
        Row(name: "Expires in asctime form, still fresh", headers: ["Expires": "Wed Nov 15 22:13:20 2023", "Date": PolicyClock.httpDate(offset: 0), "ETag": etag], elapsed: 86_399, expected: .fresh),
        Row(name: "Expires in RFC 850 form, stale", headers: ["Expires": "Wednesday, 15-Nov-23 22:13:20 GMT", "Date": PolicyClock.httpDate(offset: 0), "ETag": etag], elapsed: 86_401, expected: .revalidate(validator)),
        Row(name: "Expires in asctime form, one-digit day", headers: ["Expires": "Fri Dec  1 00:00:00 2023", "Date": PolicyClock.httpDate(offset: 0), "ETag": etag], elapsed: 1_388_799, expected: .fresh),
        Row(name: "Expires padded with spaces", headers: ["Expires": "  " + PolicyClock.httpDate(offset: 100) + " ", "Date": PolicyClock.httpDate(offset: 0), "ETag": etag], elapsed: 99, expected: .fresh),
        // Heuristic freshness from Last-Modified (§4.2.2): 10 %, capped at a day
        Row(name: "heuristic, fresh", headers: ["Last-Modified": lastModified, "Date": PolicyClock.httpDate(offset: 0)], elapsed: 99, expected: .fresh),
        Row(name: "heuristic, stale: If-Modified-Since", headers: ["Last-Modified": lastModified, "Date": PolicyClock.httpDate(offset: 0)], elapsed: 101, expected: .revalidate(["If-Modified-Since": lastModified])),
        Row(name: "heuristic capped at a day", headers: ["Last-Modified": PolicyClock.httpDate(offset: -10 * 365 * 86_400)], elapsed: 86_401,
            expected: .revalidate(["If-Modified-Since": PolicyClock.httpDate(offset: -10 * 365 * 86_400)])),
        Row(name: "heuristic cap, still fresh", headers: ["Last-Modified": PolicyClock.httpDate(offset: -10 * 365 * 86_400), "ETag": etag], elapsed: 86_399, expected: .fresh),
        Row(name: "both validators are sent", headers: ["Cache-Control": "max-age=1", "ETag": etag, "Last-Modified": lastModified], elapsed: 2, expected: .revalidate(["If-None-Match": etag, "If-Modified-Since": lastModified])),
        Row(name: "no lifetime, ETag only: revalidate every use", headers: ["ETag": etag], elapsed: 0, expected: .revalidate(validator)),
        // Not stored
        Row(name: "no-store", headers: ["Cache-Control": "no-store, max-age=600", "ETag": etag], elapsed: 0, expected: .notStored(.noStore)),
        Row(name: "no-store among other directives", headers: ["Cache-Control": "public, NO-STORE", "ETag": etag], elapsed: 0, expected: .notStored(.noStore)),
        Row(name: "no-store, aggressive too", policy: .aggressive, headers: ["Cache-Control": "no-store"], elapsed: 0, expected: .notStored(.noStore)),
        Row(name: "Vary: *", headers: ["Cache-Control": "max-age=600", "Vary": "*", "ETag": etag], elapsed: 0, expected: .notStored(.varyAll)),
        Row(name: "no freshness, no validator", headers: [:], elapsed: 0, expected: .notStored(.notReusable)),
        Row(name: "no-cache without validator", headers: ["Cache-Control": "no-cache, max-age=600"], elapsed: 0, expected: .notStored(.notReusable)),
        Row(name: "a 404 is not stored", status: 404, headers: ["Cache-Control": "max-age=600"], elapsed: 0, expected: .notStored(.status)),
        Row(name: "private is storable here", headers: ["Cache-Control": "private, max-age=60"], elapsed: 59, expected: .fresh),
        Row(name: "max-age without validator: fresh", headers: ["Cache-Control": "max-age=60"], elapsed: 59, expected: .fresh),
        Row(name: "max-age without validator: stale refetches", headers: ["Cache-Control": "max-age=60"], elapsed: 61, expected: .refetch),
        // no-cache, must-revalidate, immutable
        Row(name: "no-cache revalidates even when fresh", headers: ["Cache-Control": "no-cache, max-age=600", "ETag": etag], elapsed: 0, expected: .revalidate(validator)),
        Row(name: "qualified no-cache treated as no-cache", headers: ["Cache-Control": "no-cache=\"Set-Cookie\", max-age=600", "ETag": etag], elapsed: 0, expected: .revalidate(validator)),
        Row(name: "must-revalidate, stale", headers: ["Cache-Control": "max-age=60, must-revalidate", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "immutable fresh beats always-revalidate", policy: .init(alwaysRevalidate: true), headers: ["Cache-Control": "max-age=60, immutable", "ETag": etag], elapsed: 59, expected: .fresh),
        Row(name: "immutable stale revalidates", headers: ["Cache-Control": "max-age=60, immutable", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "always-revalidate", policy: .init(alwaysRevalidate: true), headers: ["Cache-Control": "max-age=600", "ETag": etag], elapsed: 0, expected: .revalidate(validator)),
        // Vary on the request headers Imago sends
        Row(name: "Vary: Accept-Encoding matches", headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Encoding", "ETag": etag], elapsed: 1, expected: .fresh),
        Row(name: "Vary: Accept-Encoding differs", headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Encoding", "ETag": etag], elapsed: 1,
            laterRequest: ["accept-encoding": "gzip"], expected: .refetch),
        Row(name: "Vary on a header never sent matches its absence", headers: ["Cache-Control": "max-age=60", "Vary": "Origin, accept-encoding", "ETag": etag], elapsed: 1, expected: .fresh),
        Row(name: "Vary on a header sent later only", headers: ["Cache-Control": "max-age=60", "Vary": "Origin", "ETag": etag], elapsed: 1,
            laterRequest: ["accept-encoding": "identity", "origin": "https://a.example"], expected: .refetch),
        // Overrides
        Row(name: "aggressive: nothing said, stored, fresh for years", policy: .aggressive, headers: [:], elapsed: 10 * 365 * 86_400, expected: .fresh),
        Row(name: "aggressive ignores no-cache", policy: .aggressive, headers: ["Cache-Control": "no-cache", "ETag": etag], elapsed: 0, expected: .fresh),
        Row(name: "aggressive with a TTL, stale", policy: .init(mode: .aggressive, timeToLive: .seconds(60)), headers: ["ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "TTL replaces max-age (shorter)", policy: .init(timeToLive: .seconds(60)), headers: ["Cache-Control": "max-age=1000", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "TTL replaces max-age (longer)", policy: .init(timeToLive: .seconds(60)), headers: ["Cache-Control": "max-age=0", "ETag": etag], elapsed: 59, expected: .fresh),
        Row(name: "TTL counts from receipt, not Age", policy: .init(timeToLive: .seconds(60)), headers: ["Age": "500", "ETag": etag], elapsed: 59, expected: .fresh),
        Row(name: "TTL keeps no-cache in http mode", policy: .init(timeToLive: .seconds(60)), headers: ["Cache-Control": "no-cache", "ETag": etag], elapsed: 1, expected: .revalidate(validator)),
        Row(name: "TTL stores what has no validator", policy: .init(timeToLive: .seconds(60)), headers: [:], elapsed: 59, expected: .fresh),
    ]

    /// `stale-while-revalidate` (RFC 5861 §3): past freshness, within the window, the entry is
    /// used at once and revalidated in the background; never against no-cache, must-revalidate,
    /// always-revalidate or a policy that serves no stale content.
    static let staleRows: [Row] = [
        Row(name: "swr, still fresh", headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30", "ETag": etag], elapsed: 59, expected: .fresh),
        Row(name: "swr, within the window", headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30", "ETag": etag], elapsed: 89, expected: .staleWhileRevalidate(validator)),
        Row(name: "swr, past the window", headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30", "ETag": etag], elapsed: 91, expected: .revalidate(validator)),
        Row(name: "swr, Age counts against the window", headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30", "Age": "20", "ETag": etag], elapsed: 71, expected: .revalidate(validator)),
        Row(name: "swr without a validator: a plain fetch behind", headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30"], elapsed: 61, expected: .staleWhileRevalidate([:])),
        Row(name: "swr quoted, case-insensitive", headers: ["Cache-Control": "max-age=60, Stale-While-Revalidate=\"30\"", "ETag": etag], elapsed: 61, expected: .staleWhileRevalidate(validator)),
        Row(name: "swr unusable grants nothing", headers: ["Cache-Control": "max-age=60, stale-while-revalidate=soon", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "swr=0 grants nothing", headers: ["Cache-Control": "max-age=60, stale-while-revalidate=0", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "swr with must-revalidate", headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30, must-revalidate", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "swr with no-cache", headers: ["Cache-Control": "no-cache, max-age=60, stale-while-revalidate=30", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "swr with always-revalidate", policy: .init(alwaysRevalidate: true), headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "swr, policy serves no stale content", policy: .init(servesStale: false), headers: ["Cache-Control": "max-age=60, stale-while-revalidate=30", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
        Row(name: "swr after Expires", headers: ["Cache-Control": "stale-while-revalidate=30", "Expires": PolicyClock.httpDate(offset: 100), "Date": PolicyClock.httpDate(offset: 0), "ETag": etag], elapsed: 129, expected: .staleWhileRevalidate(validator)),
        Row(name: "swr after heuristic freshness", headers: ["Cache-Control": "stale-while-revalidate=30", "Last-Modified": lastModified, "Date": PolicyClock.httpDate(offset: 0)], elapsed: 129,
            expected: .staleWhileRevalidate(["If-Modified-Since": lastModified])),
        Row(name: "swr after a TTL", policy: .init(timeToLive: .seconds(10)), headers: ["Cache-Control": "max-age=600, stale-while-revalidate=30", "ETag": etag], elapsed: 39, expected: .staleWhileRevalidate(validator)),
        Row(name: "stale-if-error alone changes no use", headers: ["Cache-Control": "max-age=60, stale-if-error=600", "ETag": etag], elapsed: 61, expected: .revalidate(validator)),
    ]

    func testEveryRow() {
        for row in Self.rows {
            let requestedAt = PolicyClock.received - row.responseDelay
            let decision = row.policy.storage(for: PolicyClock.head(row.headers, status: row.status),
                                              requestHeaders: HTTPCachePolicy.sentRequestHeaders,
                                              requestedAt: requestedAt, receivedAt: PolicyClock.received)
            let actual: Expected
            switch decision {
            case .refuse(let reason):
                actual = .notStored(reason)
            case .store(let metadata):
                switch row.policy.use(metadata, storedAt: PolicyClock.received, requestHeaders: row.laterRequest,
                                      now: PolicyClock.received + row.elapsed) {
                case .fresh: actual = .fresh
                case .revalidate(let headers): actual = .revalidate(headers)
                case .refetch: actual = .refetch
                case .staleWhileRevalidate(let headers): actual = .staleWhileRevalidate(headers)
                }
            }
            XCTAssertEqual(actual, row.expected, row.name)
        }
    }

    func testRowsCoverEveryOutcome() {
        let kinds = Set(Self.rows.map { row -> String in
            switch row.expected {
            case .fresh: "fresh"
            case .revalidate: "revalidate"
            case .refetch: "refetch"
            case .staleWhileRevalidate: "staleWhileRevalidate"
            case .notStored(let reason): "notStored.\(reason)"
            }
        })
        XCTAssertEqual(kinds, ["fresh", "revalidate", "refetch", "staleWhileRevalidate", "notStored.noStore", "notStored.varyAll",
                               "notStored.notReusable", "notStored.status"])
    }
}
