import Foundation
import Imago
import ImagoTestServer
import Testing

/// Caches an app writes itself (`AppWrittenCaches.swift`) serve the pipeline through
/// `ImageMemoryCaching` and `ImageDiskCaching`, as the built-in ones do.
@Suite struct AppWrittenCacheTests {
    private let jpeg = Data(TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg"))

    @Test func anAppMemoryCacheServesHitsAndIsTrimmedUnderPressure() async throws {
        let cache = AppMemoryCache(countLimit: 2)
        // Pressure comes from the test alone: the machine's (another test's child cgroup reclaiming
        // reaches this process's monitor) would trim the cache too (rehearsal 33, under TSan).
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(memoryCache: cache),
                                                          memory: .init(respondsToPressure: false)))
        let requests = (0..<3).map { ImageRequest(source: .data(jpeg, id: "app-memory-\($0)")) }
        var responses: [ImageResponse] = []
        for request in requests { responses.append(try await pipeline.response(for: request)) }

        #expect(cache.state.withLock { $0.insertedCosts } == responses.map(\.pixels.byteCount), "cost is the decoded size")
        #expect(cache.keys == [requests[1].key, requests[2].key], "the app's own eviction decided what stays")
        let hit = try #require(pipeline.cachedResponse(for: requests[2]))
        #expect(hit.origin == .memory)
        #expect(hit.pixels == responses[2].pixels)
        #expect(pipeline.cachedResponse(for: requests[0]) == nil)

        pipeline.trimMemory(.warning)
        #expect(cache.state.withLock { $0.trims } == [responses[1].pixels.byteCount], "half of what it held")
        pipeline.trimMemory(.critical)
        #expect(cache.totalCost == 0)
        #expect(pipeline.counters.snapshot.cacheTrims == 2)
    }

    @Test(arguments: FetchStrategy.allCases)
    func anAppDiskCacheStoresAndServesAfterARestart(_ strategy: FetchStrategy) async throws {
        let server = try await TestServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-app-disk-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = TestCorpus.bytes("png/rgba-8.png")
        server.setRoute("/app.png", Route(body: png, contentType: "image/png",
                                          faults: Faults(headers: ["Cache-Control": "max-age=600"])))
        let cache = try AppDiskCache(directory: directory)
        func pipeline() -> ImagePipeline {
            ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil, diskCache: cache),
                                               network: .init(fetchStrategy: strategy, retryPolicy: .none)))
        }
        let request = ImageRequest(source: .url(server.url(for: "/app.png")))

        let first = try await pipeline().response(for: request)
        #expect(first.origin == .network)
        #expect(first.diskCache == .stored)
        #expect(cache.operations == [strategy == .data ? "store(data)" : "store(file)"],
                "a download to file or a streamed copy is moved in, not read back")
        let restarted = try await pipeline().response(for: request)
        #expect(restarted.origin == .disk)
        #expect(restarted.pixels == first.pixels)
        #expect(server.counters.requests(for: "/app.png") == 1, "served from the app's cache without a request")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix("entry-") }
        #expect(leftovers.isEmpty, "every file the cache handed out was moved in or removed: \(leftovers)")
        try await server.shutdown()
    }
}
