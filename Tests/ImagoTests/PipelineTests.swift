import Foundation
import ImagoTestServer
import XCTest
@_spi(Testing) @testable import Imago

/// The pipeline over the loopback server, for every fetch strategy: caching, coalescing,
/// refcounted cancellation, errors and retries.
final class PipelineTests: XCTestCase {
    private var server: TestServer!
    private var cacheDirectory: URL!
    private let jpeg = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")

    override func setUp() async throws {
        server = try await TestServer.start()
        server.setRoute("/a.jpg", Route(body: jpeg, contentType: "image/jpeg"))
        cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-pipeline-\(UUID())")
    }

    override func tearDown() async throws {
        try await server.shutdown()
        try? FileManager.default.removeItem(at: cacheDirectory)
    }

    private func pipeline(_ strategy: FetchStrategy, disk: Bool = false, retry: RetryPolicy = .none) throws -> ImagePipeline {
        ImagePipeline(configuration: .init(
            dependencies: .init(diskCache: disk ? try DiskCache(directory: cacheDirectory) : nil),
            network: .init(fetchStrategy: strategy, retryPolicy: retry)))
    }

    private func request(_ path: String, maxPixelSize: Int? = nil) -> ImageRequest {
        ImageRequest(source: .url(server.url(for: path)), options: DecodeOptions(maxPixelSize: maxPixelSize))
    }

    private func expectFailure(_ pipeline: ImagePipeline, _ request: ImageRequest, _ expected: ImageLoadingError,
                               file: StaticString = #filePath, line: UInt = #line) async {
        do {
            _ = try await pipeline.response(for: request)
            XCTFail("succeeded", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, file: file, line: line)
        }
    }

    func testNetworkThenSynchronousMemoryHit() async throws {
        for strategy in FetchStrategy.allCases {
            let pipeline = try pipeline(strategy)
            let request = request("/a.jpg")
            XCTAssertNil(pipeline.cachedResponse(for: request))
            let first = try await pipeline.response(for: request)
            XCTAssertEqual(first.origin, .network)
            XCTAssertEqual(first.pixels.width, 1600)
            let hit = try XCTUnwrap(pipeline.cachedResponse(for: request))
            XCTAssertEqual(hit.origin, .memory)
            XCTAssertEqual(hit.pixels, first.pixels)
            XCTAssertEqual(pipeline.counters.snapshot.decodes, 1)
        }
        XCTAssertEqual(server.counters.requests(for: "/a.jpg"), FetchStrategy.allCases.count, "one request per pipeline")
    }

    func testBothStrategiesGiveIdenticalPixels() async throws {
        let inData = try await pipeline(.data).response(for: request("/a.jpg"))
        let toFile = try await pipeline(.file).response(for: request("/a.jpg"))
        XCTAssertEqual(inData.pixels, toFile.pixels)
    }

    func testConcurrentIdenticalLoadsMakeOneRequestAndOneDecode() async throws {
        let gate = Gate()
        server.setRoute("/gated.jpg", Route(body: jpeg, faults: Faults(gate: gate)))
        let pipeline = try pipeline(.data)
        let request = request("/gated.jpg")
        // Each task has joined the shared work when imageTask(for:) returns, so none can come
        // late and fetch again after the first finished, however busy the machine is.
        let tasks = (0..<20).map { _ in pipeline.imageTask(for: request) }
        try await gate.waitUntilHeld()
        gate.open()
        var results: [PixelBuffer] = []
        for task in tasks { results.append(try await task.response.pixels) }
        XCTAssertEqual(results.count, 20)
        XCTAssertTrue(results.allSatisfy { $0 == results[0] })
        XCTAssertEqual(server.counters.requests(for: "/gated.jpg"), 1)
        XCTAssertEqual(pipeline.counters.snapshot.decodes, 1)
    }

    func testTwoSizesShareOneFetchButNotOneDecode() async throws {
        let gate = Gate()
        server.setRoute("/sizes.jpg", Route(body: jpeg, faults: Faults(gate: gate)))
        let pipeline = try pipeline(.file)
        let smallRequest = request("/sizes.jpg", maxPixelSize: 100), largeRequest = request("/sizes.jpg")
        async let small = pipeline.response(for: smallRequest)
        async let large = pipeline.response(for: largeRequest)
        try await gate.waitUntilHeld()
        // Both sizes must have joined the one fetch before its response goes: under load the
        // second can arrive after the first has ended, and then rightly fetches again.
        var joined = false
        for _ in 0..<500 {   // 5 s at most, polling the pool's own count
            joined = pipeline.fetches.subscriberCount(for: smallRequest.source.identity) == 2
            if joined { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        XCTAssertTrue(joined, "the second size never joined the first size's fetch")
        gate.open()
        let (a, b) = try await (small, large)
        XCTAssertEqual(max(a.pixels.width, a.pixels.height), 100)
        XCTAssertEqual(b.pixels.width, 1600)
        XCTAssertEqual(server.counters.requests(for: "/sizes.jpg"), 1, "fetch coalesced by source")
        XCTAssertEqual(pipeline.counters.snapshot.decodes, 2, "decodes keyed by size (SOURCE-3)")
    }

    func testCancellingSomeSubscribersKeepsTheFetchCancellingAllStopsIt() async throws {
        let gate = Gate()
        server.setRoute("/shared.jpg", Route(body: jpeg, faults: Faults(gate: gate)))
        let pipeline = try pipeline(.data)
        let request = request("/shared.jpg")
        // imageTask(for:) has joined the shared work when it returns: all three are subscribers
        // before any cancel, however late the machine schedules them.
        let tasks = (0..<3).map { _ in pipeline.imageTask(for: request) }
        try await gate.waitUntilHeld()
        tasks[0].cancel()
        tasks[1].cancel()
        for task in tasks.prefix(2) {
            do {
                _ = try await task.response
                XCTFail("a cancelled task gave a response")
            } catch {
                XCTAssertEqual(error, .cancelled)
            }
        }
        gate.open()
        let survivor = try await tasks[2].response
        XCTAssertEqual(survivor.origin, .network)
        XCTAssertEqual(server.counters.requests(for: "/shared.jpg"), 1)

        // Now everyone cancels: the transport request is cancelled (the server sees the close).
        let stall = Gate()
        server.setRoute("/abandoned.jpg", Route(body: jpeg, faults: Faults(stallAfterBytes: 1000, gate: stall)))
        let closed = server.counters.snapshot.connectionsClosedByClient
        let abandonedRequest = self.request("/abandoned.jpg")
        let abandoned = (0..<3).map { _ in pipeline.imageTask(for: abandonedRequest) }
        try await server.counters.waitUntil { $0.bodyBytesSent(for: "/abandoned.jpg") >= 1000 }
        abandoned.forEach { $0.cancel() }
        for task in abandoned { _ = try? await task.response }
        try await server.counters.waitUntil { $0.connectionsClosedByClient > closed }
        stall.open()
    }

    func testRejoiningAfterAFullCancelSucceeds() async throws {
        let gate = Gate()
        server.setRoute("/rejoin.jpg", Route(body: jpeg, faults: Faults(gate: gate)))
        let pipeline = try pipeline(.data)
        let rejoin = request("/rejoin.jpg")
        let first = Task { try await pipeline.response(for: rejoin) }
        try await gate.waitUntilHeld()
        first.cancel()
        _ = await first.result
        gate.open()
        let second = try await pipeline.response(for: request("/rejoin.jpg"))
        XCTAssertEqual(second.origin, .network, "never the torn-down fetch's cancellation (SHARE-4)")
    }

    func testHTTPErrorsFailAtTheHeadAreNotCachedAndNotRetried() async throws {
        for strategy in FetchStrategy.allCases {
            let pipeline = try pipeline(strategy, disk: true, retry: RetryPolicy(maxRetries: 3, initialDelay: .zero))
            await expectFailure(pipeline, request("/missing.jpg"), .fetch(.httpStatus(404)))
            await expectFailure(pipeline, request("/missing.jpg"), .fetch(.httpStatus(404)))
            XCTAssertEqual(pipeline.counters.snapshot.decodes, 0, "a 404 body is never decoded")
            XCTAssertEqual(pipeline.configuration.dependencies.builtInDiskCache?.totalSize, 0)
        }
        XCTAssertEqual(server.counters.requests(for: "/missing.jpg"), 2 * FetchStrategy.allCases.count, "no retries, no negative caching")
    }

    func testBodiesThatAreNotADecodableImageAreNeverStored() async throws {
        server.setRoute("/page.jpg", Route(body: Array("<html>not found</html>".utf8), contentType: "image/jpeg"))
        server.setRoute("/anim.gif", Route(body: TestCorpus.bytes("invalid/gif89a-1x1.gif")))
        for strategy in FetchStrategy.allCases {
            let pipeline = try pipeline(strategy, disk: true)
            await expectFailure(pipeline, request("/page.jpg"), .decoding(.unsupportedFormat("unknown")))
            await expectFailure(pipeline, request("/anim.gif"), .decoding(.unsupportedFormat("gif")))
            XCTAssertEqual(pipeline.configuration.dependencies.builtInDiskCache?.totalSize, 0, "DISK-3")
            XCTAssertEqual(pipeline.counters.snapshot.decodes, 0)
        }
    }

    func testTransientFailuresAreRetried() async throws {
        server.setRoute("/flaky.jpg", Route(body: jpeg).failFirst(2, with: Faults(status: 503)))
        let pipeline = try pipeline(.data, retry: RetryPolicy(maxRetries: 2, initialDelay: .zero))
        let response = try await pipeline.response(for: request("/flaky.jpg"))
        XCTAssertEqual(response.origin, .network)
        XCTAssertEqual(server.counters.requests(for: "/flaky.jpg"), 3)
    }

    func testTruncatedBodyFailsAndNothingIsCached() async throws {
        server.setRoute("/cut.jpg", Route(body: jpeg, faults: Faults(closeAfterBytes: jpeg.count / 2)))
        for strategy in FetchStrategy.allCases {
            let pipeline = try pipeline(strategy, disk: true)
            do {
                _ = try await pipeline.response(for: request("/cut.jpg"))
                XCTFail("a truncated body succeeded")
            } catch {
                guard case .fetch(let fetchError) = error, fetchError.isTransient else { return XCTFail("\(error)") }
            }
            XCTAssertEqual(pipeline.configuration.dependencies.builtInDiskCache?.totalSize, 0)
            XCTAssertNil(pipeline.cachedResponse(for: request("/cut.jpg")))
        }
    }

    func testDiskHitAfterRestartAndCorruptEntryIsRefetched() async throws {
        // Fresh for an hour: the disk entry is used without asking (HTTP freshness has tests of its own).
        server.setRoute("/a.jpg", Route(body: jpeg, contentType: "image/jpeg", faults: Faults(headers: ["Cache-Control": "max-age=3600"])))
        for strategy in FetchStrategy.allCases {
            try? FileManager.default.removeItem(at: cacheDirectory)
            let requestsBefore = server.counters.requests(for: "/a.jpg")
            let first = try await pipeline(strategy, disk: true).response(for: request("/a.jpg"))
            XCTAssertEqual(first.origin, .network)
            XCTAssertEqual(first.diskCache, .stored)
            let restarted = try pipeline(strategy, disk: true)
            let second = try await restarted.response(for: request("/a.jpg"))
            XCTAssertEqual(second.origin, .disk)
            XCTAssertEqual(second.diskCache, .fresh)
            XCTAssertEqual(second.pixels, first.pixels)
            XCTAssertEqual(restarted.cachedResponse(for: request("/a.jpg"))?.origin, .memory, "promoted (CACHE-2)")
            XCTAssertEqual(server.counters.requests(for: "/a.jpg"), requestsBefore + 1)

            // Corrupt the stored bytes (same size, garbage): a miss, removed, fetched again.
            let disk = try DiskCache(directory: cacheDirectory)
            let entry = try XCTUnwrap(disk.entry(forKey: request("/a.jpg").source.identity))
            try Data(repeating: 0x42, count: entry.byteCount).write(to: entry.url)
            let third = try await pipeline(strategy, disk: true).response(for: request("/a.jpg"))
            XCTAssertEqual(third.origin, .network, "a corrupt disk entry is a miss (CACHE-4)")
            XCTAssertEqual(third.diskCache, .stored, "the corrupt entry was removed, so this is a new one")
            XCTAssertEqual(third.pixels, first.pixels)
        }
    }
}
