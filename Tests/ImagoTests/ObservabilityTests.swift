import CoreMetrics
import Foundation
import ImagoTestServer
import InMemoryLogging
import Logging
import MetricsTestKit
import Testing
@testable import Imago

/// The pipeline's swift-metrics instruments and swift-log records: a `TestMetrics` factory and an
/// `InMemoryLogHandler` passed in its configuration (no global bootstrap, so suites run in
/// parallel) see what `PipelineCounters` counts, with the dimensions and metadata the
/// Observability article lists.
@Suite struct ObservabilityTests {
    private let png = TestCorpus.bytes("png/rgba-8.png")
    private let jpeg = Data(TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg"))   // 7.3 MiB decoded

    /// A pipeline reporting to `metrics` and to a debug-level (or `level`) in-memory log.
    private func pipeline(_ metrics: TestMetrics, _ log: InMemoryLogHandler, level: Logger.Level = .debug,
                          dependencies: ImagePipeline.Configuration.Dependencies = .init(),
                          network: ImagePipeline.Configuration.Network = .init(),
                          memory: ImagePipeline.Configuration.Memory = .init()) -> ImagePipeline {
        var logger = Logger(label: "imago-test", factory: { _ in log })
        logger.logLevel = level
        return ImagePipeline(configuration: .init(
            dependencies: dependencies, network: network, memory: memory,
            diagnostics: .init(logger: logger, metricsFactory: metrics, metricsDimensions: [("pipeline", "test")])))
    }

    private func counter(_ metrics: TestMetrics, _ label: String, _ dimensions: [(String, String)] = []) -> Int64 {
        metrics.counterTotal(label: label, dimensions: [("pipeline", "test")] + dimensions)
    }

    private func timings(_ metrics: TestMetrics, _ label: String, _ dimensions: [(String, String)] = []) -> [Int64] {
        metrics.timers(label: label, dimensions: [("pipeline", "test")] + dimensions).flatMap(\.values)
    }

    private func entries(_ log: InMemoryLogHandler, _ message: String) -> [InMemoryLogHandler.Entry] {
        log.entries.filter { $0.message.description == message }
    }

    @Test(arguments: FetchStrategy.allCases)
    func aRetriedFetchADiskStoreAndCacheHitsAreCountedAsTheCountersCountThem(strategy: FetchStrategy) async throws {
        let server = try await TestServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-observability-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        server.setRoute("/flaky.png", Route(body: png, contentType: "image/png",
                                            faults: Faults(headers: ["Cache-Control": "max-age=3600"]))
            .failFirst(1, with: Faults(status: 503)))
        let (metrics, log) = (TestMetrics(), InMemoryLogHandler())
        let pipeline = pipeline(metrics, log, dependencies: .init(diskCache: try DiskCache(directory: directory)),
                                network: .init(fetchStrategy: strategy, retryPolicy: RetryPolicy(maxRetries: 2, initialDelay: .zero)))
        let url = server.url(for: "/flaky.png")
        _ = try await pipeline.response(for: ImageRequest(source: .url(url)))            // 503, retry, 200, stored
        _ = try await pipeline.response(for: ImageRequest(source: .url(url)))            // memory hit
        _ = try await pipeline.response(for: ImageRequest(source: .url(url), options: DecodeOptions(maxPixelSize: 2)))   // disk, fresh
        try await server.shutdown()

        let counts = pipeline.counters.snapshot
        #expect(counts.fetches == 2 && counts.decodes == 2 && counts.memoryHits == 1 && counts.diskFreshHits == 1 && counts.diskStores == 1)
        #expect(counter(metrics, "imago_fetches_total", [("strategy", strategy.rawValue)]) == Int64(counts.fetches))
        #expect(metrics.counterTotal(label: "imago_fetches_total") == Int64(counts.fetches), "no other strategy counted")
        #expect(counter(metrics, "imago_fetch_retries_total", [("reason", "status")]) == 1)
        #expect(counter(metrics, "imago_decodes_total") == Int64(counts.decodes))
        #expect(counter(metrics, "imago_decode_bytes_admitted_total") == Int64(counts.decodeBytesAdmitted))
        #expect(counter(metrics, "imago_cache_hits_total", [("tier", "memory")]) == Int64(counts.memoryHits))
        #expect(counter(metrics, "imago_cache_hits_total", [("tier", "disk_fresh")]) == Int64(counts.diskFreshHits))
        #expect(counter(metrics, "imago_cache_hits_total", [("tier", "disk_revalidated")]) == 0)
        #expect(counter(metrics, "imago_disk_cache_stores_total", [("outcome", "stored")]) == Int64(counts.diskStores))
        #expect(metrics.counterTotal(label: "imago_disk_cache_not_stored_total") == 0)

        let dimensions = [("strategy", strategy.rawValue)]
        #expect(timings(metrics, "imago_fetch_duration_seconds", dimensions + [("outcome", "failure")]).count == 1, "the 503")
        #expect(timings(metrics, "imago_fetch_duration_seconds", dimensions + [("outcome", "success")]).count == 1)
        #expect(!timings(metrics, "imago_fetch_first_byte_seconds", dimensions).isEmpty)
        #expect(timings(metrics, "imago_queue_wait_seconds", [("stage", "fetch")]).count == counts.fetches)
        #expect(timings(metrics, "imago_queue_wait_seconds", [("stage", "decode")]).count == counts.decodes)
        let decodeTimes = timings(metrics, "imago_decode_duration_seconds")
        #expect(decodeTimes.count == counts.decodes && decodeTimes.allSatisfy { $0 > 0 })
        let inFlight = try metrics.expectMeter("imago_decode_bytes_in_flight", [("pipeline", "test")])
        #expect(inFlight.lastValue == 0, "every admitted decode gave its bytes back")
        #expect(inFlight.values.contains { $0 > 0 })

        let retry = try #require(entries(log, "Retrying fetch").first)
        #expect(retry.level == .debug)
        #expect(retry.metadata["source"] == "url:\(url.absoluteString)", "the source's identity")
        #expect(retry.metadata["attempt"] == "1")
        #expect(retry.metadata["reason"] == "httpStatus(503)")
        #expect(retry.metadata["delay_ms"]?.description == "0.0")
        let started = entries(log, "Fetch started")
        #expect(started.map { $0.metadata["attempt"] } == ["1", "2"])
        #expect(started.allSatisfy { $0.metadata["strategy"] == "\(strategy.rawValue)" })
        #expect(entries(log, "Fetch ended").map { $0.metadata["status"] } == [nil, "200"])
        let stored = try #require(entries(log, "Stored in the disk cache").first)
        #expect(stored.metadata["outcome"] == "stored")
        #expect(entries(log, "Disk cache hit (fresh)").count == 1)
        #expect(entries(log, "Load ended").count == 2, "the memory hit is no load")
        #expect(entries(log, "Memory cache hit").isEmpty, "trace, below the logger's level")
    }

    @Test func aDecodeRefusedForMemoryIsLoggedWithItsSizesAndCounted() async throws {
        let (metrics, log) = (TestMetrics(), InMemoryLogHandler())
        let pipeline = pipeline(metrics, log, dependencies: .init(memoryCache: nil), memory: .init(environment: .fixedLimit(4 << 20)))
        await #expect(throws: ImageLoadingError.self) {
            _ = try await pipeline.response(for: ImageRequest(source: .data(jpeg, id: "observability-refused")))
        }
        #expect(pipeline.counters.snapshot.decodesRefusedForMemory == 1)
        #expect(counter(metrics, "imago_decode_memory_refusals_total") == 1)
        #expect(counter(metrics, "imago_decodes_total") == 0)
        let refused = try #require(entries(log, "Decode refused for memory").first)
        let bytes = try #require(refused.metadata["bytes"].flatMap { Int($0.description) })
        #expect(bytes > 4 << 20)
        #expect(refused.metadata["key"] == "data:observability-refused")
        #expect(refused.metadata["reason"]?.description.contains("\(4 << 20)") == true, "the limit it would pass")
    }

    @Test func pressureAndTrimsAreCountedByLevelAndCause() async throws {
        let monitor = MemoryPressureMonitor.simulatedOnly()
        let (metrics, log) = (TestMetrics(), InMemoryLogHandler())
        let pipeline = pipeline(metrics, log, memory: .init(environment: .process(pressureMonitor: monitor)))
        _ = try await pipeline.response(for: ImageRequest(source: .data(jpeg, id: "observability-pressure")))
        monitor.simulate(.critical)
        pipeline.trimMemory(.warning)
        let counts = pipeline.counters.snapshot
        #expect(counts.memoryPressureEvents == 1 && counts.cacheTrims == 2)
        #expect(counter(metrics, "imago_memory_pressure_events_total", [("level", "critical")]) == 1)
        #expect(counter(metrics, "imago_memory_pressure_events_total", [("level", "warning")]) == 0)
        #expect(counter(metrics, "imago_memory_cache_trims_total", [("cause", "pressure")]) == 1)
        #expect(counter(metrics, "imago_memory_cache_trims_total", [("cause", "app")]) == 1)
        #expect(entries(log, "Memory pressure").map { $0.metadata["level"] } == ["critical"])
        let trims = entries(log, "Trimmed the memory cache")
        #expect(trims.map { $0.metadata["cause"] } == ["pressure", "app"])
        #expect(trims.first?.metadata["to_bytes"] == "0", "critical empties the cache")
    }

    @Test func traceShowsTheMemoryCacheAndDiskLookupsAndDebugDoesNot() async throws {
        let (metrics, log) = (TestMetrics(), InMemoryLogHandler())
        let pipeline = pipeline(metrics, log, level: .trace)
        let request = ImageRequest(source: .data(Data(png), id: "observability-trace"))
        _ = try await pipeline.response(for: request)
        _ = try await pipeline.response(for: request)
        #expect(entries(log, "Stored in the memory cache").count == 1)
        #expect(entries(log, "Memory cache hit").count == 1)
        #expect(entries(log, "Decode started").count == 1 && entries(log, "Decode ended").count == 1)
        #expect(entries(log, "Memory cache hit").allSatisfy { $0.level == .trace })
    }

    @Test func withoutABackendThePipelineMakesNoInstrumentAndReadsNoClock() async throws {
        let pipeline = ImagePipeline(configuration: .init(diagnostics: .init(metricsFactory: NOOPMetricsHandler.instance)))
        #expect(pipeline.diagnostics.metrics == nil)
        #expect(!pipeline.diagnostics.measuresTime)
        #expect(pipeline.diagnostics.now() == nil)
        let handled = ImagePipeline(configuration: .init(diagnostics: .init(eventHandler: { _ in }, metricsFactory: NOOPMetricsHandler.instance)))
        #expect(handled.diagnostics.measuresTime, "events carry their times")
        _ = try await pipeline.response(for: ImageRequest(source: .data(Data(png), id: "observability-noop")))
        #expect(pipeline.counters.snapshot.decodes == 1, "the counters are kept all the same")
    }
}
