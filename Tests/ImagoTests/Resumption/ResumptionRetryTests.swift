import Foundation
import ImagoTestServer
import Synchronization
import XCTest
@testable import Imago

/// Resumable downloads within one fetch: the pipeline's automatic retry continues a transfer that
/// broke mid-body (Range / If-Range, 206), for both transports, without a disk cache.
final class ResumptionRetryTests: XCTestCase {
    private var harness: ResumptionHarness!
    private let jpeg = ResumptionHarness.jpeg
    private var reference: PixelBuffer!
    private var half: Int { jpeg.count / 2 }

    override func setUp() async throws {
        harness = try await ResumptionHarness.start()
        reference = try ImageDecoder.decode(jpeg).pixels
    }

    override func tearDown() async throws { try await harness.stop() }

    func testATruncatedDownloadIsContinuedWithA206() async throws {
        for (name, transport) in ResumptionHarness.transports {
            let path = "/truncated-\(name).jpg"
            harness.server.setRoute(path, Route(body: jpeg, initialFaults: [Faults(closeAfterBytes: half)]))
            let events = EventKinds()
            let reports = Mutex<[FetchProgress]>([])
            let pipeline = try harness.pipeline(transport, events: events)
            let response = try await pipeline.response(for: harness.request(path)) { p in reports.withLock { $0.append(p) } }
            XCTAssertEqual(response.pixels, reference, name)
            // What the partial holds: every byte the client took before the close (a transport
            // may drop bytes it had buffered when the connection broke; never more than sent).
            let kept = pipeline.counters.snapshot.resumedBytes
            XCTAssertTrue((1...half).contains(kept), "\(name): kept \(kept)")
            XCTAssertEqual(harness.ranges(path), [nil, "bytes=\(kept)-"], name)
            let ifRange = try XCTUnwrap(harness.ifRanges(path).last ?? nil, name)
            XCTAssertTrue(ifRange.hasPrefix("\""), "a strong ETag: \(ifRange)")
            // The server counts a write once it completes, which can be after the client read it.
            try await harness.server.counters.waitUntil { $0.responsesCompleted(for: path) >= 1 }
            XCTAssertEqual(harness.server.counters.bodyBytesSent(for: path), half + jpeg.count - kept,
                           "\(name): only the rest the second time")
            XCTAssertEqual(pipeline.counters.snapshot.resumedDownloads, 1, name)
            XCTAssertEqual(events.count(.resumed), 1, name)
            let last = try XCTUnwrap(reports.withLock { $0.last })
            XCTAssertEqual(last, FetchProgress(received: jpeg.count, expected: jpeg.count), "\(name): the whole body")
            await harness.expectNoTemporaries(name)
        }
    }

    func testAChangedResourceFailsIfRangeAndRestartsWithA200() async throws {
        for (name, transport) in ResumptionHarness.transports {
            let path = "/changed-\(name).jpg"
            // The first answer carries another (older) tag: the retry's If-Range no longer matches.
            let first = Faults(closeAfterBytes: half, headers: ["ETag": "\"an-older-version\""])
            harness.server.setRoute(path, Route(body: jpeg, initialFaults: [first]))
            let pipeline = try harness.pipeline(transport)
            let response = try await pipeline.response(for: harness.request(path))
            XCTAssertEqual(response.pixels, reference, name)
            XCTAssertEqual(harness.ranges(path).map { $0?.hasPrefix("bytes=") }, [nil, true], name)
            XCTAssertEqual(harness.ifRanges(path).last, "\"an-older-version\"", name)
            // The server counts a write once it completes, which can be after the client read it.
            try await harness.server.counters.waitUntil { $0.responsesCompleted(for: path) >= 1 }
            XCTAssertEqual(harness.server.counters.bodyBytesSent(for: path), half + jpeg.count, "\(name): a 200, whole")
            XCTAssertEqual(pipeline.counters.snapshot.resumedDownloads, 0, name)
            await harness.expectNoTemporaries(name)
        }
    }

    func testWithoutAStrongValidatorOrByteRangesNothingIsKept() async throws {
        let unfit: [(String, [String: String])] = [
            ("weak", ["ETag": "W/\"weak\""]),
            ("no-ranges", ["Accept-Ranges": "none"]),
        ]
        for (name, transport) in ResumptionHarness.transports {
            for (kind, headers) in unfit {
                let path = "/\(kind)-\(name).jpg"
                harness.server.setRoute(path, Route(body: jpeg, faults: Faults(headers: headers),
                                                    initialFaults: [Faults(closeAfterBytes: half, headers: headers)]))
                let pipeline = try harness.pipeline(transport)
                let response = try await pipeline.response(for: harness.request(path))
                XCTAssertEqual(response.pixels, reference, "\(name) \(kind)")
                XCTAssertEqual(harness.ranges(path), [nil, nil], "\(name) \(kind): the retry starts over")
                // The server counts a write once it completes, which can be after the client read it.
                try await harness.server.counters.waitUntil { $0.responsesCompleted(for: path) >= 1 }
                XCTAssertEqual(harness.server.counters.bodyBytesSent(for: path), half + jpeg.count, "\(name) \(kind)")
                XCTAssertEqual(pipeline.counters.snapshot.resumedDownloads, 0)
                await harness.expectNoTemporaries("\(name) \(kind)")
            }
        }
    }

    func testA206ForOtherBytesDropsThePartialAndStartsOverWithoutRange() async throws {
        for (name, transport) in ResumptionHarness.transports {
            let path = "/lying-\(name).jpg"
            // Chunked (no Content-Length to contradict it): only the range's start gives it away.
            let lie = Faults(chunked: true, headers: ["Content-Range": "bytes 7-\(jpeg.count - 1)/\(jpeg.count)"])
            harness.server.setRoute(path, Route(body: jpeg, initialFaults: [Faults(closeAfterBytes: half), lie]))
            let pipeline = try harness.pipeline(transport)
            let response = try await pipeline.response(for: harness.request(path))
            XCTAssertEqual(response.pixels, reference, name)
            XCTAssertEqual(harness.ranges(path).map { $0?.hasPrefix("bytes=") }, [nil, true, nil], name)
            XCTAssertEqual(pipeline.counters.snapshot.resumedDownloads, 0, name)
            await harness.expectNoTemporaries(name)
        }
    }

    func testA416DropsThePartialAndStartsOverWithoutRange() async throws {
        for (name, transport) in ResumptionHarness.transports {
            let path = "/unsatisfiable-\(name).jpg"
            harness.server.setRoute(path, Route(body: jpeg, initialFaults: [Faults(closeAfterBytes: half), Faults(status: 416)]))
            let pipeline = try harness.pipeline(transport)
            let response = try await pipeline.response(for: harness.request(path))
            XCTAssertEqual(response.pixels, reference, name)
            XCTAssertEqual(harness.ranges(path).map { $0?.hasPrefix("bytes=") }, [nil, true, nil], name)
            await harness.expectNoTemporaries(name)
        }
    }

    func testAPartialIsNotKeptPastTheFetchWithoutADiskCache() async throws {
        for (name, transport) in ResumptionHarness.transports {
            let path = "/exhausted-\(name).jpg"
            // Each answer, the 206 too, breaks after a quarter of the image.
            harness.server.setRoute(path, Route(body: jpeg, faults: Faults(closeAfterBytes: jpeg.count / 4)))
            let pipeline = try harness.pipeline(transport, retries: RetryPolicy(maxRetries: 1, initialDelay: .milliseconds(5)))
            do {
                _ = try await pipeline.response(for: harness.request(path))
                XCTFail("\(name): every answer is truncated")
            } catch {
                guard case .fetch(.truncated) = error else { return XCTFail("\(name): \(error)") }
            }
            // The retry asked for the rest, and broke again: the partial was only for this fetch.
            let ranges = harness.ranges(path)
            XCTAssertEqual(ranges.count, 2, name)
            XCTAssertEqual(ranges.first, .some(nil), name)
            XCTAssertEqual(ranges.last??.hasPrefix("bytes="), true, "\(name): \(ranges)")
            await harness.expectNoTemporaries(name)
        }
    }

    func testCancellingMidBodyLeavesNothing() async throws {
        for (name, transport) in ResumptionHarness.transports {
            for diskCache in [false, true] {
                let path = "/cancelled-\(name)-\(diskCache).jpg"
                harness.server.setRoute(path, Route(body: jpeg, faults: Faults(stallAfterBytes: half)))
                let pipeline = try harness.pipeline(transport, diskCache: diskCache)
                let request = harness.request(path)
                let load = Task { try await pipeline.response(for: request) }
                let half = half
                try await harness.server.counters.waitUntil { $0.bodyBytesSent(for: path) == half }
                // The partial exists while the body stalls...
                try await waitFor { !self.harness.temporaries().isEmpty }
                load.cancel()
                let outcome = await load.result
                guard case .failure = outcome else { return XCTFail("\(name): a cancelled load succeeded") }
                // ...and is gone after the cancel, record and all.
                await harness.expectNoTemporaries("\(name) disk cache \(diskCache)")
            }
        }
    }
}
