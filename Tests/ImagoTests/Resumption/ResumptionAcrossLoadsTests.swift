import Foundation
import ImagoTestServer
import Synchronization
import XCTest
@testable import Imago

/// Resumable downloads across loads sharing one disk cache directory: a partial a failed load
/// kept (with its record) is continued by the next load, in a new pipeline and cache instance as
/// another process would; it is swept like other leftovers, and a damaged one is dropped.
final class ResumptionAcrossLoadsTests: XCTestCase {
    private var harness: ResumptionHarness!
    private let jpeg = ResumptionHarness.jpeg
    private var reference: PixelBuffer!
    private var half: Int { jpeg.count / 2 }

    override func setUp() async throws {
        harness = try await ResumptionHarness.start()
        reference = try ImageDecoder.decode(jpeg).pixels
    }

    override func tearDown() async throws { try await harness.stop() }

    /// Loads `path` once with retries off and expects it to fail (leaving a partial).
    private func failOnce(_ path: String, _ transport: any ImageTransport, idleTimeout: Duration = .seconds(10),
                          cacheSizeLimit: Int = 64 << 20, file: StaticString = #filePath, line: UInt = #line) async throws {
        let pipeline = try harness.pipeline(transport, retries: RetryPolicy.none, diskCache: true, idleTimeout: idleTimeout,
                                            cacheSizeLimit: cacheSizeLimit)
        do {
            _ = try await pipeline.response(for: harness.request(path))
            XCTFail("the first load should fail", file: file, line: line)
        } catch {}
    }

    private var partials: [String] { harness.temporaries().filter { $0.hasPrefix(DiskCacheNaming.partialDownloadPrefix) } }

    func testTheNextLoadContinuesAPartialAFailedLoadKept() async throws {
        for (name, transport) in ResumptionHarness.transports {
            let path = "/next-\(name).jpg"
            harness.server.setRoute(path, Route(body: jpeg, initialFaults: [Faults(closeAfterBytes: half)]))
            try await failOnce(path, transport)
            XCTAssertEqual(partials.count, 2, "\(name): the partial and its record")
            let pipeline = try harness.pipeline(transport, diskCache: true)
            let response = try await pipeline.response(for: harness.request(path))
            XCTAssertEqual(response.pixels, reference, name)
            let kept = pipeline.counters.snapshot.resumedBytes
            XCTAssertTrue((1...half).contains(kept), "\(name): kept \(kept)")
            XCTAssertEqual(harness.ranges(path), [nil, "bytes=\(kept)-"], name)
            // The server counts a write once it completes, which can be after the client read it.
            try await harness.server.counters.waitUntil { $0.responsesCompleted(for: path) >= 1 }
            XCTAssertEqual(harness.server.counters.bodyBytesSent(for: path), half + jpeg.count - kept, name)
            XCTAssertNotNil(pipeline.configuration.dependencies.diskCache?.entry(forKey: harness.request(path).source.identity), name)
            await harness.expectNoTemporaries(name)
        }
    }

    func testAPartialLeftByAnIdleTimeoutIsContinued() async throws {
        for (name, transport) in ResumptionHarness.transports {
            let path = "/stalled-\(name).jpg"
            harness.server.setRoute(path, Route(body: jpeg, initialFaults: [Faults(stallAfterBytes: half)]))
            try await failOnce(path, transport, idleTimeout: .milliseconds(300))
            XCTAssertEqual(partials.count, 2, "\(name): the partial and its record")
            let pipeline = try harness.pipeline(transport, diskCache: true)
            let response = try await pipeline.response(for: harness.request(path))
            XCTAssertEqual(response.pixels, reference, name)
            XCTAssertEqual(harness.ranges(path), [nil, "bytes=\(pipeline.counters.snapshot.resumedBytes)-"], name)
            XCTAssertEqual(pipeline.counters.snapshot.resumedDownloads, 1, name)
            await harness.expectNoTemporaries(name)
        }
    }

    func testAResourceChangedSinceThePartialIsFetchedWholeWithA200() async throws {
        let other = ResumptionHarness.otherJPEG
        for (name, transport) in ResumptionHarness.transports {
            let path = "/replaced-\(name).jpg"
            harness.server.setRoute(path, Route(body: jpeg, faults: Faults(closeAfterBytes: half)))
            try await failOnce(path, transport)
            harness.server.setRoute(path, Route(body: other))   // a new ETag
            let pipeline = try harness.pipeline(transport, diskCache: true)
            let response = try await pipeline.response(for: harness.request(path))
            XCTAssertEqual(response.pixels, try ImageDecoder.decode(other).pixels, name)
            XCTAssertEqual(harness.ranges(path).last??.hasPrefix("bytes="), true, name)
            XCTAssertEqual(pipeline.counters.snapshot.resumedDownloads, 0, name)
            await harness.expectNoTemporaries(name)
        }
    }

    func testAPartialOlderThanTheGracePeriodIsSwept() async throws {
        let transport = AsyncHTTPClientTransport.shared
        let path = "/swept.jpg"
        harness.server.setRoute(path, Route(body: jpeg, initialFaults: [Faults(closeAfterBytes: half)]))
        try await failOnce(path, transport)
        XCTAssertEqual(partials.count, 2)
        // A cache opened 11 minutes later (past the 10 minute grace) sweeps them on opening.
        let later: @Sendable () -> Date = { Date().addingTimeInterval(660) }
        let pipeline = try harness.pipeline(transport, diskCache: true, cacheClock: later)
        XCTAssertEqual(partials, [])
        _ = try await pipeline.response(for: harness.request(path))
        XCTAssertEqual(harness.ranges(path), [nil, nil], "nothing left to continue")
    }

    func testAPartialWhoseRecordDoesNotMatchItsFileIsDropped() async throws {
        for (name, transport) in ResumptionHarness.transports {
            let path = "/damaged-\(name).jpg"
            harness.server.setRoute(path, Route(body: jpeg, initialFaults: [Faults(closeAfterBytes: half)]))
            try await failOnce(path, transport)
            let partial = try XCTUnwrap(partials.first { !$0.hasSuffix(".json") })
            // A crash mid-write, say: the file holds bytes the record does not vouch for.
            let handle = try FileHandle(forWritingTo: harness.scratch.appendingPathComponent(partial))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data([0xFF, 0xD8]))
            try handle.close()
            let pipeline = try harness.pipeline(transport, diskCache: true)
            let response = try await pipeline.response(for: harness.request(path))
            XCTAssertEqual(response.pixels, reference, name)
            XCTAssertEqual(harness.ranges(path), [nil, nil], "\(name): dropped, fetched whole")
            await harness.expectNoTemporaries(name)
        }
    }

    func testNoPartialIsKeptForABodyLargerThanTheDiskCache() async throws {
        for (name, transport) in ResumptionHarness.transports {
            let path = "/too-big-to-keep-\(name).jpg"
            harness.server.setRoute(path, Route(body: jpeg, initialFaults: [Faults(closeAfterBytes: half)]))
            try await failOnce(path, transport, cacheSizeLimit: jpeg.count - 1)
            XCTAssertEqual(partials, [], "\(name): the complete body would not fit the cache")
        }
    }

    func testOnlyOneFetchOwnsASourcesPartial() throws {
        let url = harness.server.url(for: "/owned.jpg")
        let cache = try DiskCache(directory: harness.scratch)
        func partial(_ key: String) -> ResumableDownload? {
            .persistent(cache.partialDownloadFiles(forKey: key), temporaries: cache.makeTemporaryFileURL, url: url, limit: 1 << 20)
        }
        let first = try XCTUnwrap(partial("k"))
        XCTAssertNil(partial("k"),
                     "a second owner of one partial")
        XCTAssertNotNil(partial("other"))
        first.close()
        let again = partial("k")
        XCTAssertNotNil(again, "free once the first owner closed")
        again?.close()
        XCTAssertEqual(partials, [], "nothing kept without bytes")
    }
}
