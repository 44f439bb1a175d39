import Foundation
import XCTest
@testable import Imago

/// MEM-4 through the pipeline: pressure events trim what it keeps for speed, loads go on.
final class PipelinePressureTests: XCTestCase {
    private let jpeg = Data(TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg"))

    override func tearDown() {
        PixelMemory.retainedByteLimit = MemoryBudgets.current.pixelMemoryRetainedLimit
    }

    /// A pipeline with a private monitor (so the shared one's rate limit is not in play) whose
    /// 48 MiB cache holds four 1600x1200 images (7.3 MiB each).
    private func filledPipeline(respond: Bool = true) async throws -> (ImagePipeline, MemoryPressureMonitor) {
        let monitor = MemoryPressureMonitor.simulatedOnly()
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(memoryCache: MemoryCache(configuration: .init(costLimit: 48 << 20))),
            memory: .init(respondsToPressure: respond, environment: .process(pressureMonitor: monitor))))
        for index in 0..<4 {
            _ = try await pipeline.response(for: ImageRequest(source: .data(jpeg, id: "pressure-\(index)")))
        }
        return (pipeline, monitor)
    }

    func testWarningHalvesTheCacheAndReturnsPooledPixels() async throws {
        let (pipeline, monitor) = try await filledPipeline()
        let cache = try XCTUnwrap(pipeline.configuration.dependencies.builtInMemoryCache)
        XCTAssertEqual(cache.count, 4)
        let pooled = try XCTUnwrap(PixelBuffer(uninitializedWidth: 1600, height: 1200))
        PixelMemory.retainedByteLimit = 64 << 20
        _ = consume pooled   // freed into the reuse pool
        XCTAssertGreaterThan(PixelMemory.retainedBytes, 0)

        let held = cache.totalCost
        monitor.simulate(.warning)
        XCTAssertLessThanOrEqual(cache.totalCost, held / 2, "halved")
        XCTAssertEqual(cache.count, 2, "least recently used first, only as many as needed")
        XCTAssertEqual(PixelMemory.retainedBytes, 0)
        let counters = pipeline.counters.snapshot
        XCTAssertEqual(counters.memoryPressureEvents, 1)
        XCTAssertEqual(counters.cacheTrims, 1)
        _ = try await pipeline.response(for: ImageRequest(source: .data(jpeg, id: "after-warning")))
    }

    func testCriticalEmptiesTheCacheAndLoadsStillEndInOneResult() async throws {
        let (pipeline, monitor) = try await filledPipeline()
        monitor.simulate(.critical)
        XCTAssertEqual(pipeline.configuration.dependencies.builtInMemoryCache?.count, 0)
        XCTAssertEqual(PixelMemory.retainedBytes, 0)
        // Admissions are held for a moment; a load started now waits, then decodes.
        let response = try await pipeline.response(for: ImageRequest(source: .data(jpeg, id: "after-critical")))
        XCTAssertEqual(response.pixels.width, 1600)
        XCTAssertEqual(pipeline.counters.snapshot.memoryPressureEvents, 1)
    }

    func testAPipelineThatDoesNotRespondKeepsItsCache() async throws {
        let (pipeline, monitor) = try await filledPipeline(respond: false)
        monitor.simulate(.critical)
        XCTAssertEqual(pipeline.configuration.dependencies.builtInMemoryCache?.count, 4)
        XCTAssertEqual(pipeline.counters.snapshot.memoryPressureEvents, 0)
    }

    func testManualTrim() async throws {
        let (pipeline, _) = try await filledPipeline(respond: false)
        pipeline.trimMemory(.critical)
        XCTAssertEqual(pipeline.configuration.dependencies.builtInMemoryCache?.count, 0)
        XCTAssertEqual(pipeline.counters.snapshot.cacheTrims, 1)
    }

    /// A monitor that reads a root with nothing under it: no real source can fire during a
    /// test (this host's system-wide pressure would otherwise reach it); `simulate` still does.
    func testObservingPressureDoesNotKeepThePipelineAlive() async throws {
        let monitor = MemoryPressureMonitor.simulatedOnly()
        weak var weakPipeline: ImagePipeline?
        do {
            let pipeline = ImagePipeline(configuration: .init(memory: .init(environment: .process(pressureMonitor: monitor))))
            weakPipeline = pipeline
            _ = try await pipeline.response(for: ImageRequest(source: .data(jpeg, id: "observer-lifetime")))
        }
        XCTAssertNil(weakPipeline)
        monitor.simulate(.critical)   // nobody left to respond: no crash, nothing retained
    }
}
