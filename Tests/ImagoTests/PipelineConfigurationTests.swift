import Foundation
import Synchronization
import XCTest
@testable import Imago
import ImagoConformance

/// The configuration's groups, presets and clock: what each preset changes from the default
/// (and only that), and that one `PipelineClock` serves dates and back-offs.
final class PipelineConfigurationTests: XCTestCase {
    func testTheDefaultHasNoDiskCacheAndTheDocumentedKnobs() {
        let configuration = ImagePipeline.Configuration()
        XCTAssertNil(configuration.dependencies.diskCache)
        XCTAssertNotNil(configuration.dependencies.memoryCache)
        XCTAssertEqual(configuration.network.fetchStrategy, .data)
        XCTAssertEqual(configuration.network.httpCachePolicy, .http)
        XCTAssertEqual(configuration.network.idleTimeout, .seconds(30))
        XCTAssertEqual(configuration.network.maxResponseSize, 256 << 20)
        XCTAssertEqual(configuration.limits.maxConcurrentFetches, 6)
        XCTAssertEqual(configuration.limits.maxConcurrentDecodes, ProcessInfo.processInfo.activeProcessorCount)
        XCTAssertEqual(configuration.memory.decodeBudget, MemoryBudgets.current.decodeBudget)
        XCTAssertTrue(configuration.memory.respondsToPressure)
        XCTAssertNil(configuration.diagnostics.eventHandler)
        XCTAssertNil(configuration.previews)
        XCTAssertNil(ImagePipeline.Configuration.withoutDiskCache.dependencies.diskCache)
    }

    func testWithDiskCacheOpensTheCacheAndDownloadsToFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-preset-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try ImagePipeline.Configuration.withDiskCache(at: directory, sizeLimit: 8 << 20)
        let cache = try XCTUnwrap(configuration.dependencies.builtInDiskCache)
        XCTAssertEqual(cache.directory, directory.standardizedFileURL)
        XCTAssertEqual(cache.configuration.sizeLimit, 8 << 20)
        XCTAssertEqual(configuration.network.fetchStrategy, .file)
        XCTAssertEqual(configuration.limits.maxConcurrentFetches, 6, "everything else at its default")
    }

    func testConstrainedContainerStreamsWithFewerFetchesAndDecodes() {
        let configuration = ImagePipeline.Configuration.constrainedContainer()
        XCTAssertNil(configuration.dependencies.diskCache)
        XCTAssertEqual(configuration.network.fetchStrategy, .stream)
        XCTAssertEqual(configuration.limits.maxConcurrentFetches, 4)
        XCTAssertEqual(configuration.limits.maxConcurrentDecodes, min(2, ProcessInfo.processInfo.activeProcessorCount))
        XCTAssertEqual(configuration.memory.decodeBudget, MemoryBudgets.current.decodeBudget, "budgets follow the limit")
    }

    func testOnePipelineClockGivesDatesAndWaitsOnItsSleeper() async throws {
        let dates = TestClock()
        let sleeper = ManualClock()
        let clock = dates.pipelineClock(sleepingOn: sleeper)
        XCTAssertEqual(clock.now, dates.now())
        dates.advance(by: 120)
        XCTAssertEqual(clock.now, dates.now(), "dates follow the injected source")
        let waited = Task { try await clock.sleep(for: .seconds(10)) }
        while sleeper.sleeperCount == 0 { await Task.yield() }
        sleeper.advance(by: .seconds(10))
        try await waited.value
        let cancelled = Task { try await clock.sleep(for: .seconds(10)) }
        cancelled.cancel()
        do {
            try await cancelled.value
            XCTFail("a cancelled back-off must throw")
        } catch {}
    }
}
