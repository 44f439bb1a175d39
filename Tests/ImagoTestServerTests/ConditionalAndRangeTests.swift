import Foundation
import ImagoTestSupport
import XCTest

@testable import ImagoTestServer

/// Validators (ETag, Last-Modified, 304) and byte ranges (206, 416).
final class ConditionalAndRangeTests: XCTestCase {
    private let modified = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    func testETagIsStableAndIfNoneMatchOrIfModifiedSinceGive304() async throws {
        try await TestServer.with { server in
            server.setRoute("/a.jpg", Route(body: [1, 2, 3], contentType: "image/jpeg", lastModified: modified))
            try await RawConnection.with(port: server.port) { connection in
                let full = try await connection.request("/a.jpg")
                let tag = try XCTUnwrap(full.header("ETag"))
                XCTAssertEqual(tag, EntityTag.strong(hash: EntityTag.fnv1a64([1, 2, 3])))
                XCTAssertFalse(tag.hasPrefix("W/"), "strong")
                XCTAssertEqual(full.header("Last-Modified"), "Sun, 06 Nov 1994 08:49:37 GMT")

                for value in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                    let cached = try await connection.request("/a.jpg", headers: [("If-None-Match", value)])
                    XCTAssertEqual(cached.status, 304, value)
                    XCTAssertEqual(cached.body, [], value)
                    XCTAssertEqual(cached.header("ETag"), tag)
                    XCTAssertNil(cached.header("Content-Length"))
                }
                let stale = try await connection.request("/a.jpg", headers: [("If-None-Match", "\"other\"")])
                XCTAssertEqual(stale.status, 200)
                XCTAssertEqual(stale.body, [1, 2, 3])

                let notModified = try await connection.request(
                    "/a.jpg", headers: [("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")])
                XCTAssertEqual(notModified.status, 304)
                let modifiedSince = try await connection.request(
                    "/a.jpg", headers: [("If-Modified-Since", "Sat, 05 Nov 1994 08:49:37 GMT")])
                XCTAssertEqual(modifiedSince.status, 200)
                let tagWins = try await connection.request(
                    "/a.jpg",
                    headers: [("If-None-Match", "\"other\""), ("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")])
                XCTAssertEqual(tagWins.status, 200, "If-None-Match decides when both are sent")
            }
            server.setRoute("/a.jpg", Route(body: [1, 2, 4]))
            let changed = try await RawConnection.request(port: server.port, "/a.jpg")
            XCTAssertEqual(changed.header("ETag"), EntityTag.strong(hash: EntityTag.fnv1a64([1, 2, 4])))
        }
    }

    func testFilesAnswerConditionalRequestsToo() async throws {
        let root = try TemporaryDirectory.make("imago-test-server")
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(patternBytes(5000)).write(to: root.appendingPathComponent("f.png"))
        try await TestServer.with(.init(root: root)) { server in
            let full = try await RawConnection.request(port: server.port, "/f.png")
            let tag = try XCTUnwrap(full.header("ETag"))
            let lastModified = try XCTUnwrap(full.header("Last-Modified"))
            let byTag = try await RawConnection.request(port: server.port, "/f.png", headers: [("If-None-Match", tag)])
            XCTAssertEqual(byTag.status, 304)
            let byDate = try await RawConnection.request(
                port: server.port, "/f.png", headers: [("If-Modified-Since", lastModified)])
            XCTAssertEqual(byDate.status, 304)
            let range = try await RawConnection.request(port: server.port, "/f.png", headers: [("Range", "bytes=4990-")])
            XCTAssertEqual(range.status, 206)
            XCTAssertEqual(range.body, Array(patternBytes(5000)[4990...]))
        }
    }

    func testSingleRangesGive206AndUnsatisfiableOnesGive416() async throws {
        let body = (0..<100).map { UInt8($0) }
        try await TestServer.with { server in
            server.setRoute("/r.bin", Route(body: body))
            try await RawConnection.with(port: server.port) { connection in
                let cases: [(String, Range<Int>)] = [
                    ("bytes=10-19", 10..<20), ("bytes=90-", 90..<100), ("bytes=-5", 95..<100),
                    ("bytes=95-200", 95..<100), ("bytes=0-0", 0..<1), ("bytes=-500", 0..<100),
                ]
                for (header, range) in cases {
                    let response = try await connection.request("/r.bin", headers: [("Range", header)])
                    XCTAssertEqual(response.status, 206, header)
                    XCTAssertEqual(response.body, Array(body[range]), header)
                    XCTAssertEqual(response.header("Content-Length"), "\(range.count)", header)
                    XCTAssertEqual(
                        response.header("Content-Range"), "bytes \(range.lowerBound)-\(range.upperBound - 1)/100", header)
                }
                for header in ["bytes=100-", "bytes=500-600", "bytes=-0"] {
                    let response = try await connection.request("/r.bin", headers: [("Range", header)])
                    XCTAssertEqual(response.status, 416, header)
                    XCTAssertEqual(response.header("Content-Range"), "bytes */100", header)
                    XCTAssertEqual(response.body, [], header)
                }
                for header in ["bytes=0-1,5-6", "bytes=5-2", "items=0-5", "bytes=x-"] {
                    let response = try await connection.request("/r.bin", headers: [("Range", header)])
                    XCTAssertEqual(response.status, 200, "\(header) is ignored")
                    XCTAssertEqual(response.body, body, header)
                }
                let plain = try await connection.request("/r.bin")
                let tag = try XCTUnwrap(plain.header("ETag"))
                let current = try await connection.request("/r.bin", headers: [("Range", "bytes=0-9"), ("If-Range", tag)])
                XCTAssertEqual(current.status, 206)
                let stale = try await connection.request(
                    "/r.bin", headers: [("Range", "bytes=0-9"), ("If-Range", "\"stale\"")])
                XCTAssertEqual(stale.status, 200, "a stale If-Range gets the whole body")
                XCTAssertEqual(stale.body.count, 100)
            }
        }
    }

    func testRangeHeaderParsing() {
        XCTAssertEqual(RangeRequest(header: nil, size: 10), .whole)
        XCTAssertEqual(RangeRequest(header: "bytes=2-4", size: 10), .partial(2..<5))
        XCTAssertEqual(RangeRequest(header: "BYTES=2-", size: 10), .partial(2..<10))
        XCTAssertEqual(RangeRequest(header: "bytes=-3", size: 0), .unsatisfiable)
        XCTAssertEqual(RangeRequest(header: "bytes=0-", size: 0), .unsatisfiable)
        XCTAssertEqual(RangeRequest(header: "bytes=99999999999999999999999-", size: 10), .unsatisfiable)
        XCTAssertEqual(RangeRequest(header: "bytes=-", size: 10), .whole)
    }

    func testHTTPDatesRoundTrip() {
        XCTAssertEqual(HTTPDate.format(secondsSince1970: 784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPDate.format(secondsSince1970: 0), "Thu, 01 Jan 1970 00:00:00 GMT")
        XCTAssertEqual(HTTPDate.format(secondsSince1970: 951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT")
        for seconds: Int64 in [0, 784_111_777, 951_782_400, 1_795_000_000, 4_102_444_800] {
            XCTAssertEqual(HTTPDate.parse(HTTPDate.format(secondsSince1970: seconds)), seconds)
        }
        XCTAssertNil(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"))
        XCTAssertNil(HTTPDate.parse("yesterday"))
    }
}
