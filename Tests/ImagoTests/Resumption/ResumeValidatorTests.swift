import Foundation
import XCTest
@testable import Imago

/// The rules that decide whether a broken body may be continued, and how a 206's range is read.
final class ResumeValidatorTests: XCTestCase {
    private func head(status: Int = 200, _ fields: [String: String]) -> FetchResponseHead {
        FetchResponseHead(statusCode: status, etag: fields["etag"], lastModified: fields["last-modified"], headers: fields)
    }

    func testAStrongETagIsTheValidatorAndAWeakOneNothing() {
        XCTAssertEqual(ResumeValidator.strong(head(["etag": "\"abc\""])), "\"abc\"")
        XCTAssertNil(ResumeValidator.strong(head(["etag": "W/\"abc\""])))
        // A weak tag is not replaced by the date: RFC 9110 §13.1.5 allows a date only without a tag.
        XCTAssertNil(ResumeValidator.strong(head(["etag": "W/\"abc\"", "last-modified": "Mon, 23 Nov 2026 10:00:00 GMT",
                                                  "date": "Mon, 23 Nov 2026 12:00:00 GMT"])))
    }

    func testALastModifiedIsStrongOnlyAMinuteBeforeTheDate() {
        let modified = "Mon, 23 Nov 2026 10:00:00 GMT"
        XCTAssertEqual(ResumeValidator.strong(head(["last-modified": modified, "date": "Mon, 23 Nov 2026 10:01:00 GMT"])), modified)
        XCTAssertNil(ResumeValidator.strong(head(["last-modified": modified, "date": "Mon, 23 Nov 2026 10:00:59 GMT"])))
        XCTAssertNil(ResumeValidator.strong(head(["last-modified": modified])), "no Date: cannot tell")
    }

    func testByteRangesMustBeAnnounced() {
        XCTAssertTrue(ResumeValidator.acceptsByteRanges(head(["accept-ranges": "bytes"])))
        XCTAssertTrue(ResumeValidator.acceptsByteRanges(head(["accept-ranges": "none, Bytes"])))
        XCTAssertFalse(ResumeValidator.acceptsByteRanges(head(["accept-ranges": "none"])))
        XCTAssertFalse(ResumeValidator.acceptsByteRanges(head([:])))
        XCTAssertTrue(ResumeValidator.acceptsByteRanges(head(status: 206, [:])), "a 206 implies it")
        XCTAssertFalse(ResumeValidator.isIdentity(head(["content-encoding": "gzip"])))
        XCTAssertTrue(ResumeValidator.isIdentity(head(["content-encoding": "identity"])))
    }

    func testContentRangeIsReadStrictly() {
        XCTAssertEqual(ContentRange("bytes 100-199/200"), ContentRange("bytes 100-199/200"))
        let range = ContentRange("bytes 100-199/200")
        XCTAssertEqual(range?.first, 100)
        XCTAssertEqual(range?.last, 199)
        XCTAssertEqual(range?.complete, 200)
        XCTAssertNil(ContentRange("bytes 100-199/*")?.complete)
        for lie in ["bytes 100-199/150", "bytes 200-100/300", "bytes -1-5/10", "items 0-1/2", "bytes 0-1", "bytes x-1/2", nil] {
            XCTAssertNil(ContentRange(lie), "\(lie ?? "nil")")
        }
    }
}
