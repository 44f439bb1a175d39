import Foundation
import XCTest
@testable import Imago

/// A 304 refreshes what is stored (RFC 9111 §4.3.4), and what is stored survives as metadata.
final class HTTPCacheRefreshTests: XCTestCase {
    let policy = HTTPCachePolicy.http
    let request = HTTPCachePolicy.sentRequestHeaders

    private func stored(_ headers: [String: String]) throws -> DiskCache.Metadata {
        guard case .store(let metadata) = policy.storage(for: PolicyClock.head(headers), requestHeaders: request,
                                                          requestedAt: PolicyClock.received, receivedAt: PolicyClock.received)
        else { throw XCTSkip("not stored") }
        return metadata
    }

    func testA304RestartsFreshnessWithItsOwnHeaders() throws {
        let original = try stored(["Cache-Control": "max-age=60", "ETag": "\"a\"", "Content-Type": "image/png"])
        let later = PolicyClock.received + 3600
        let refreshed = policy.refreshed(original, with: PolicyClock.head(["Cache-Control": "max-age=120", "ETag": "\"b\"",
                                                                          "Date": PolicyClock.httpDate(later)], status: 304),
                                         requestHeaders: request, requestedAt: later, receivedAt: later)
        XCTAssertEqual(refreshed.etag, "\"b\"")
        XCTAssertEqual(refreshed.responseHeaders["cache-control"], "max-age=120")
        XCTAssertEqual(refreshed.responseHeaders["content-type"], "image/png", "fields the 304 does not carry stay")
        XCTAssertEqual(refreshed.receivedAt, later)
        XCTAssertEqual(policy.use(refreshed, storedAt: later, requestHeaders: request, now: later + 119), .fresh)
        XCTAssertEqual(policy.use(refreshed, storedAt: later, requestHeaders: request, now: later + 121),
                       .revalidate(["If-None-Match": "\"b\""]))
    }

    func testA304WithoutHeadersKeepsTheValidators() throws {
        let original = try stored(["Cache-Control": "max-age=60", "ETag": "\"a\"", "Last-Modified": PolicyClock.httpDate(offset: -10)])
        let refreshed = policy.refreshed(original, with: PolicyClock.head([:], status: 304), requestHeaders: request,
                                         requestedAt: PolicyClock.received + 100, receivedAt: PolicyClock.received + 100)
        XCTAssertEqual(refreshed.etag, "\"a\"")
        XCTAssertEqual(refreshed.lastModified, original.lastModified)
        XCTAssertEqual(policy.use(refreshed, storedAt: PolicyClock.received + 100, requestHeaders: request,
                                  now: PolicyClock.received + 159), .fresh)
    }

    func testA304WithoutADateIsAgedFromItsReceipt() throws {
        let original = try stored(["Cache-Control": "max-age=60", "ETag": "\"a\"", "Date": PolicyClock.httpDate(offset: 0)])
        let later = PolicyClock.received + 100
        let refreshed = policy.refreshed(original, with: PolicyClock.head([:], status: 304), requestHeaders: request,
                                         requestedAt: later, receivedAt: later)
        XCTAssertNil(refreshed.responseHeaders["date"], "the original Date would make the entry 100 s old at once")
        XCTAssertEqual(policy.use(refreshed, storedAt: later, requestHeaders: request, now: later + 59), .fresh)
    }

    func testOnlyA304WithTheStoredStrongETagConfirmsTheEntry() throws {
        let original = try stored(["Cache-Control": "max-age=60", "ETag": "\"a\""])
        XCTAssertTrue(HTTPCachePolicy.confirms(PolicyClock.head(["ETag": "\"a\""], status: 304), original))
        XCTAssertTrue(HTTPCachePolicy.confirms(PolicyClock.head([:], status: 304), original), "no ETag: nothing contradicts it")
        XCTAssertTrue(HTTPCachePolicy.confirms(PolicyClock.head(["ETag": "W/\"a\""], status: 304), original), "weak tags are not compared")
        XCTAssertFalse(HTTPCachePolicy.confirms(PolicyClock.head(["ETag": "\"b\""], status: 304), original))
    }

    func testA304ThatSaysNoStoreIsNotKept() throws {
        let original = try stored(["Cache-Control": "max-age=60", "ETag": "\"a\""])
        let refreshed = policy.refreshed(original, with: PolicyClock.head(["Cache-Control": "no-store"], status: 304),
                                         requestHeaders: request, requestedAt: PolicyClock.received, receivedAt: PolicyClock.received)
        XCTAssertEqual(policy.storage(for: refreshed, receivedAt: PolicyClock.received), .refuse(.noStore))
    }

    func testOnlyTheFieldsThatDecideReuseAreKept() throws {
        let metadata = try stored(["Cache-Control": "max-age=60", "ETag": "\"a\"", "Set-Cookie": "secret=1",
                                   "Content-Length": "5", "Vary": "Accept-Encoding"])
        XCTAssertEqual(Set(metadata.responseHeaders.keys), ["cache-control", "etag", "vary"])
        XCTAssertEqual(metadata.varyingRequestHeaders, ["accept-encoding": "identity"])
    }

    func testEntriesFromBeforeTheHTTPFieldsAreRevalidated() {
        // A sidecar written by an older Imago: validators only, no times, no Cache-Control.
        let old = DiskCache.Metadata(etag: "\"a\"")
        XCTAssertEqual(policy.use(old, storedAt: PolicyClock.received, requestHeaders: request, now: PolicyClock.received + 1),
                       .revalidate(["If-None-Match": "\"a\""]))
        XCTAssertEqual(HTTPCachePolicy.aggressive.use(old, storedAt: PolicyClock.received, requestHeaders: request,
                                                      now: PolicyClock.received + 1e9), .fresh)
    }

    func testHTTPDatesInAllThreeForms() {
        let expected = Date(timeIntervalSince1970: 784_111_777)   // RFC 9110's example instant
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), expected)
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"), expected)
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), expected)
        XCTAssertEqual(HTTPDate.parse(PolicyClock.httpDate(offset: 0)), PolicyClock.received)
        for bad in ["", "0", "-1", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 32 Nov 1994 08:49:37 GMT", "tomorrow"] {
            XCTAssertNil(HTTPDate.parse(bad), bad)
        }
    }

    func testDefaultsAreStated() {
        let policy = HTTPCachePolicy()
        XCTAssertEqual(policy.mode, .http)
        XCTAssertNil(policy.timeToLive)
        XCTAssertFalse(policy.alwaysRevalidate)
        XCTAssertEqual(policy.maxHeuristicLifetime, .seconds(86_400))
        XCTAssertEqual(ImagePipeline.Configuration().network.httpCachePolicy, .http)
    }
}
