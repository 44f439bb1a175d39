import Foundation
import Testing
@testable import Imago

/// The pipeline's memory decisions read the environment on its configuration, not the
/// process's globals: a supplied limit refuses, supplied pixel memory makes a decode wait, and
/// the supplied pressure monitor's events trim.
@Suite struct MemoryEnvironmentTests {
    private let jpeg = Data(TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg"))   // 7.3 MiB decoded

    @Test func aSuppliedLimitRefusesADecodeThatTheProcessWouldAdmit() async throws {
        let request = ImageRequest(source: .data(jpeg, id: "environment-limit"))
        let constrained = ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil), memory: .init(environment: .fixedLimit(4 << 20))))
        await #expect {
            _ = try await constrained.response(for: request)
        } throws: { error in
            guard case ImageLoadingError.decoding(.exceedsMemoryLimit(let required, let limit)) = error else { return false }
            return limit == 4 << 20 && required > limit
        }
        #expect(constrained.counters.snapshot.decodesRefusedForMemory == 1)
        let unconstrained = ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil)))
        let response = try await unconstrained.response(for: request)
        #expect(response.pixels.width == 1600)
    }

    @Test func suppliedPixelMemoryDelaysADecode() async throws {
        // 3 GiB of pixels alive (as the supplied gauge says) under a 4 GiB limit: past the 2/3
        // ceiling with any decode, so the decode queues for pixel memory; nothing of the gauge's
        // is ever freed, so it starts when `MemoryBudgets.livePixelWait` (500 ms) runs out.
        let gauge = PixelMemoryGauge(liveBytes: { 3 << 30 })
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(memoryCache: nil),
            memory: .init(decodeBudget: 1 << 30, environment: .fixedLimit(4 << 30, pixels: gauge))))
        let started = ContinuousClock.now
        let response = try await pipeline.response(for: ImageRequest(source: .data(jpeg, id: "environment-pixels")))
        #expect(response.pixels.height == 1200)
        #expect(pipeline.counters.snapshot.decodesWaitedForMemory == 1, "it queued for the supplied pixel memory")
        #expect(ContinuousClock.now - started >= MemoryBudgets.livePixelWait)
        let unheld = ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil), memory: .init(decodeBudget: 1 << 30)))
        _ = try await unheld.response(for: ImageRequest(source: .data(jpeg, id: "environment-pixels")))
        #expect(unheld.counters.snapshot.decodesWaitedForMemory == 0, "the process's own pixel memory did not hold it")
    }

    @Test func theSuppliedMonitorsEventsTrimTheCache() async throws {
        let monitor = MemoryPressureMonitor.simulatedOnly()
        let pipeline = ImagePipeline(configuration: .init(memory: .init(environment: .process(pressureMonitor: monitor))))
        _ = try await pipeline.response(for: ImageRequest(source: .data(jpeg, id: "environment-monitor")))
        let cache = try #require(pipeline.configuration.dependencies.builtInMemoryCache)
        #expect(cache.count == 1)
        monitor.simulate(.critical)
        #expect(cache.count == 0)
        #expect(pipeline.counters.snapshot.memoryPressureEvents == 1)
    }
}
