import ImagoConformance
import Foundation
import ImagoTestServer
import Synchronization
import XCTest
@testable import Imago

/// Retry back-off on a manual clock, revalidation of stale disk entries, and the non-URL sources.
final class RetryAndSourceTests: XCTestCase {
    private var server: TestServer!
    private let png = TestCorpus.bytes("png/rgba-8.png")

    override func setUp() async throws { server = try await TestServer.start() }
    override func tearDown() async throws { try await server.shutdown() }

    private func waitForSleeper(_ clock: ManualClock) async {
        let deadline = ContinuousClock.now + .seconds(10)
        while clock.sleeperCount == 0 && ContinuousClock.now < deadline { await Task.yield() }
        XCTAssertEqual(clock.sleeperCount, 1, "the pipeline is backing off")
    }

    func testBackOffWaitsOnTheClockBeforeRetrying() async throws {
        server.setRoute("/flaky.png", Route(body: png).failFirst(2, with: Faults(status: 503)))
        let clock = ManualClock()
        let policy = RetryPolicy(maxRetries: 3, initialDelay: .seconds(10), multiplier: 2, maxDelay: .seconds(15))
        XCTAssertEqual([1, 2, 3].map(policy.delay(beforeRetry:)), [.seconds(10), .seconds(15), .seconds(15)])
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(clock: PipelineClock(sleepingOn: clock)),
                                                          network: .init(retryPolicy: policy)))
        let request = ImageRequest(source: .url(server.url(for: "/flaky.png")))
        let load = Task { try await pipeline.response(for: request) }
        await waitForSleeper(clock)
        XCTAssertEqual(server.counters.requests(for: "/flaky.png"), 1, "no retry before the delay")
        clock.advance(by: .seconds(9))
        XCTAssertEqual(clock.sleeperCount, 1)
        clock.advance(by: .seconds(1))
        try await server.counters.waitUntil { $0.requests(for: "/flaky.png") == 2 }
        await waitForSleeper(clock)
        clock.advance(by: .seconds(15))
        let response = try await load.value
        XCTAssertEqual(response.origin, .network)
        XCTAssertEqual(server.counters.requests(for: "/flaky.png"), 3)
    }

    func testCancelDuringBackOffStopsRequestsAndIsNotAFailure() async throws {
        server.setRoute("/down.png", Route(body: png, faults: Faults(status: 500)))
        let clock = ManualClock()
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(clock: PipelineClock(sleepingOn: clock)),
                                                          network: .init(retryPolicy: RetryPolicy(maxRetries: 5))))
        let request = ImageRequest(source: .url(server.url(for: "/down.png")))
        let load = Task { try await pipeline.response(for: request) }
        await waitForSleeper(clock)
        load.cancel()
        let result = await load.result
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? ImageLoadingError, .cancelled) }
        clock.advance(by: .seconds(60))
        XCTAssertEqual(server.counters.requests(for: "/down.png"), 1, "RETRY-2")
    }

    func testRetriesGiveUpWithTheLastError() async throws {
        server.setRoute("/down.png", Route(body: png, faults: Faults(status: 502)))
        let pipeline = ImagePipeline(configuration: .init(network: .init(retryPolicy: RetryPolicy(maxRetries: 2, initialDelay: .zero))))
        do {
            _ = try await pipeline.response(for: ImageRequest(source: .url(server.url(for: "/down.png"))))
            XCTFail("succeeded")
        } catch {
            XCTAssertEqual(error, .fetch(.httpStatus(502)))
        }
        XCTAssertEqual(server.counters.requests(for: "/down.png"), 3)
    }

    func testStaleDiskEntryIsRevalidatedAnd304ServesTheCachedBytes() async throws {
        server.setRoute("/cached.png", Route(body: png))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-ttl-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Mutex(Date(timeIntervalSince1970: 1_000_000))
        func pipeline() throws -> ImagePipeline {
            let disk = try DiskCache(directory: directory)
            let clock = PipelineClock(now: { now.withLock { $0 } }, sleepingOn: ContinuousClock())
            return ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil, diskCache: disk, clock: clock),
                network: .init(httpCachePolicy: .init(timeToLive: .seconds(60)))))
        }
        let request = ImageRequest(source: .url(server.url(for: "/cached.png")))
        let first = try await pipeline().response(for: request)
        XCTAssertEqual(first.origin, .network)
        let fresh = try await pipeline().response(for: request)
        XCTAssertEqual(fresh.origin, .disk)
        XCTAssertEqual(server.counters.requests(for: "/cached.png"), 1)
        now.withLock { $0 += 120 }   // past the TTL: revalidate with the stored ETag
        let revalidated = try await pipeline().response(for: request)
        XCTAssertEqual(revalidated.origin, .disk, "304 serves the cached bytes")
        XCTAssertEqual(revalidated.pixels, first.pixels)
        XCTAssertEqual(server.counters.requests(for: "/cached.png"), 2)
        let again = try await pipeline().response(for: request)
        XCTAssertEqual(again.origin, .disk)
        XCTAssertEqual(server.counters.requests(for: "/cached.png"), 2, "the refresh made the entry fresh again")
    }

    func testLocalSourcesDecodeWithLocalOrigin() async throws {
        let pipeline = ImagePipeline()
        let file = TestCorpus.url("png/rgba-8.png")
        let fromFile = try await pipeline.response(for: ImageRequest(source: .file(file)))
        XCTAssertEqual(fromFile.origin, .local)
        let fromData = try await pipeline.response(for: ImageRequest(source: .data(Data(png))))
        XCTAssertEqual(fromData.pixels, fromFile.pixels)
        let bytes = Data(png)
        let custom = CustomImageSource(id: "test:png") { .encoded(bytes) }
        let fromCustom = try await pipeline.response(for: ImageRequest(source: .custom(custom),
                                                                       options: DecodeOptions(maxPixelSize: 10)))
        XCTAssertEqual(max(fromCustom.pixels.width, fromCustom.pixels.height), 10)
        let pixels = PixelBuffer(width: 2, height: 2, rgba: [UInt8](repeating: 200, count: 16))
        let fromPixels = try await pipeline.response(for: ImageRequest(source: .pixels(pixels, id: "p")))
        XCTAssertEqual(fromPixels.pixels, pixels)
        XCTAssertEqual(pipeline.cachedResponse(for: ImageRequest(source: .pixels(pixels, id: "p")))?.origin, .memory)
    }

    func testURLSourcesAreCodableAsStrings() throws {
        let json = #"["https://example.com/a.jpg", "file:///tmp/b.png"]"#
        let sources = try JSONDecoder().decode([ImageSource].self, from: Data(json.utf8))
        XCTAssertEqual(sources, [.url(URL(string: "https://example.com/a.jpg")!), .file(URL(fileURLWithPath: "/tmp/b.png"))])
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(sources[0]), as: UTF8.self), #""https:\/\/example.com\/a.jpg""#)
        XCTAssertThrowsError(try JSONDecoder().decode(ImageSource.self, from: Data(#""ftp://x/y""#.utf8)))
        XCTAssertThrowsError(try JSONEncoder().encode(ImageSource.data(Data([1, 2, 3]))))
    }
}
