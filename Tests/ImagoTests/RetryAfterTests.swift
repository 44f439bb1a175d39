import Foundation
import ImagoConformance
import ImagoTestServer
import XCTest
@testable import Imago

/// Which failures are retried, how long Imago waits when a server says `Retry-After`, and which
/// URLs never reach the transport.
final class RetryAfterTests: XCTestCase {
    func testRetryAfterReadsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)   // Wed, 21 Oct 2015 07:28:00 GMT
        XCTAssertEqual(RetryAfter.parse("120", now: now), .seconds(120))
        XCTAssertEqual(RetryAfter.parse(" 0 ", now: now), .seconds(0))
        XCTAssertEqual(RetryAfter.parse("Wed, 21 Oct 2015 07:28:03 GMT", now: now), .seconds(3))
        XCTAssertEqual(RetryAfter.parse("Wednesday, 21-Oct-15 07:28:02 GMT", now: now), .seconds(2))
        XCTAssertEqual(RetryAfter.parse("Wed Oct 21 07:28:01 2015", now: now), .seconds(1))
        XCTAssertEqual(RetryAfter.parse("Tue, 20 Oct 2015 07:28:00 GMT", now: now), .zero, "a past date waits nothing")
        XCTAssertEqual(RetryAfter.parse("99999999999999999999999", now: now), .seconds(Int(Int32.max)))
        for malformed in [nil, "", "soon", "-5", "1.5", "Wed, 32 Oct 2015 07:28:00 GMT"] {
            XCTAssertNil(RetryAfter.parse(malformed, now: now), "\(malformed ?? "nil")")
        }
    }

    func testOnlyTransientFailuresAreRetriedAndALongRetryAfterIsNot() {
        let policy = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(250), maxRetryAfter: .seconds(10))
        XCTAssertEqual(policy.delay(beforeRetry: 1, after: .httpStatus(503)), .milliseconds(250))
        XCTAssertEqual(policy.delay(beforeRetry: 2, after: .transport("reset")), .milliseconds(500))
        XCTAssertNil(policy.delay(beforeRetry: 3, after: .transport("reset")), "retries used up")
        XCTAssertEqual(policy.delay(beforeRetry: 1, after: .httpStatus(429, retryAfter: .seconds(3))), .seconds(3))
        XCTAssertEqual(policy.delay(beforeRetry: 1, after: .httpStatus(503, retryAfter: .zero)), .milliseconds(250),
                       "never sooner than the back-off")
        XCTAssertNil(policy.delay(beforeRetry: 1, after: .httpStatus(503, retryAfter: .seconds(11))))
        for permanent: FetchError in [.httpStatus(404), .httpStatus(403), .tls("expired"), .tooManyRedirects(limit: 5),
                                      .unsupportedScheme("ftp"), .invalidURL("no host"), .timedOut, .emptyData,
                                      .tooLarge(limit: 1), .cancelled, .fileSystem("full")] {
            XCTAssertFalse(permanent.isTransient, "\(permanent)")
            XCTAssertNil(policy.delay(beforeRetry: 1, after: permanent), "\(permanent)")
        }
        XCTAssertEqual(FetchError.httpStatus(503, retryAfter: .milliseconds(1500)).description, "httpStatus(503)")
        XCTAssertEqual(FetchError.httpStatus(503, retryAfter: .milliseconds(1500)).detail,
                       "httpStatus(503): the server asked to retry after 1.5 s")
    }

    func testSchemesAreCaseInsensitiveAndOnlyHTTPIsFetched() throws {
        func kind(_ text: String) throws -> URLSourceKind { URLSourceKind(try XCTUnwrap(URL(string: text))) }
        XCTAssertEqual(try kind("HTTP://example.com/a.png"), .remote(URL(string: "http://example.com/a.png")!))
        XCTAssertEqual(try kind("hTTps://[::1]:8080/a.png"), .remote(URL(string: "https://[::1]:8080/a.png")!))
        XCTAssertEqual(try kind("FILE:///tmp/a.png"), .localFile)
        XCTAssertEqual(try kind("ftp://example.com/a.png"), .unfetchable(.unsupportedScheme("ftp")))
        XCTAssertEqual(try kind("http:///a.png"), .unfetchable(.invalidURL("no host in http:///a.png")))
    }

    func testUnfetchableURLsFailAtOnceWithoutARequestAndFileURLsLoadLocally() async throws {
        let server = try await TestServer.start()
        defer { Task { try? await server.shutdown() } }
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil)))
        do {
            _ = try await pipeline.response(for: ImageRequest(source: .url(URL(string: "ftp://127.0.0.1/a.png")!)))
            XCTFail("ftp loaded")
        } catch {
            XCTAssertEqual(error, .fetch(.unsupportedScheme("ftp")))
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imago-fileurl-\(UUID()).png")
        try Data(TestCorpus.bytes("png/rgba-8.png")).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let local = try await pipeline.response(for: ImageRequest(source: .url(URL(string: file.absoluteString)!)))
        XCTAssertEqual(local.origin, .local)
        XCTAssertEqual(server.counters.snapshot.totalRequests, 0)
    }

    func testA503WithRetryAfterIsRetriedAfterTheServersWaitAndALongOneIsNot() async throws {
        let server = try await TestServer.start()
        let png = TestCorpus.bytes("png/rgba-8.png")
        server.setRoute("/busy.png", Route(body: png).failFirst(1, with: Faults(status: 503, headers: ["Retry-After": "7"])))
        server.setRoute("/away.png", Route(body: png, faults: Faults(status: 503, headers: ["Retry-After": "3600"])))
        let clock = ManualClock()
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil, clock: PipelineClock(sleepingOn: clock))))
        let load = Task { try await pipeline.response(for: ImageRequest(source: .url(server.url(for: "/busy.png")))) }
        let deadline = ContinuousClock.now + .seconds(10)
        while clock.sleeperCount == 0 && ContinuousClock.now < deadline { await Task.yield() }
        clock.advance(by: .seconds(6))
        XCTAssertEqual(clock.sleeperCount, 1, "still waiting: the server asked for 7 s, the back-off is 250 ms")
        XCTAssertEqual(server.counters.requests(for: "/busy.png"), 1)
        clock.advance(by: .seconds(1))
        let response = try await load.value
        XCTAssertEqual(response.origin, .network)
        XCTAssertEqual(server.counters.requests(for: "/busy.png"), 2)
        do {
            _ = try await pipeline.response(for: ImageRequest(source: .url(server.url(for: "/away.png"))))
            XCTFail("loaded")
        } catch {
            XCTAssertEqual(error, .fetch(.httpStatus(503, retryAfter: .seconds(3600))))
        }
        XCTAssertEqual(server.counters.requests(for: "/away.png"), 1, "an hour is past the 10 s maximum: no retry")
        try await server.shutdown()
    }
}

/// A download a killed process left in a disk cache directory is a temporary file to the cache.
final class DownloadLeftoverTests: XCTestCase {
    func testDownloadTemporariesAreSweptByTheDiskCache() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-leftover-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let leftover = FetchRequest(url: URL(string: "http://127.0.0.1/a.png")!, temporaryDirectory: directory)
            .makeDownloadFileURL()
        XCTAssertEqual(DiskCacheNaming.classify(leftover.lastPathComponent), .temporary)
        try Data(repeating: 1, count: 100).write(to: leftover)
        let old = Date(timeIntervalSinceNow: -3600)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: leftover.path)
        _ = try DiskCache(directory: directory)   // opening sweeps
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path))
    }
}
