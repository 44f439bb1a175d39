import Dispatch
import Foundation
@testable import Imago
import ImagoConformance
import ImagoTestServer
import Synchronization
import Testing

/// Storing a body blocks on the disk (`fsync`, renames). The pipeline makes its stores on threads
/// of the disk stage's own (`DiskStage.offCooperativePool`), so stores stuck on a slow disk leave
/// the cooperative pool to the other loads' decodes, and a load still completes only once its
/// entry is visible.
@Suite(.serialized) struct DiskStoreOffPoolTests {
    /// A `DiskCache` whose stores wait at a gate, counting the stores that arrived.
    final class GatedStoreCache: DiskCacheWrapping {
        let cache: DiskCache
        let gate = DispatchSemaphore(value: 0)
        let arrived = Atomic(0)
        let released = Atomic(false)

        init(directory: URL) throws { cache = try DiskCache(directory: directory) }

        /// Lets every store, waiting or to come, through (once).
        func release(_ waiting: Int) {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            for _ in 0..<waiting { gate.signal() }
        }

        private func pass() {
            arrived.add(1, ordering: .acquiringAndReleasing)
            if !released.load(ordering: .acquiring) { gate.wait() }
        }

        func store(_ data: Data, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
            pass()
            return try cache.store(data, forKey: key, metadata: metadata)
        }

        func store(fileAt url: URL, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
            pass()
            return try cache.store(fileAt: url, forKey: key, metadata: metadata)
        }
    }

    /// As many stores stuck as the cooperative pool has threads (the disk stage's own pool has
    /// as many, so all of them reach the disk at once): a decode of bytes in memory still
    /// finishes before they are let go. Were the stores made on the cooperative pool, nothing else could run until the
    /// backstop released them, and the decode would finish after it: the verdict is the order of
    /// two events, not a time.
    @Test(arguments: [FetchStrategy.data, .file, .stream])
    func storesStuckOnTheDiskDoNotStallOtherDecodes(_ strategy: FetchStrategy) async throws {
        let stuck = min(ProcessInfo.processInfo.activeProcessorCount, DiskStage.blockingThreads)
        let server = try await TestServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-gated-store-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try GatedStoreCache(directory: directory)
        let jpeg = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")
        let paths = (0..<stuck).map { "/stuck-\($0).jpg" }
        for path in paths { server.setRoute(path, Route(body: jpeg, contentType: "image/jpeg")) }
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(memoryCache: nil, diskCache: cache),
            network: .init(fetchStrategy: strategy, retryPolicy: .none),
            limits: .init(maxConcurrentFetches: stuck + 1, maxConcurrentDecodes: stuck + 1)))
        // Backstop: turns a stall into a failure instead of a hang.
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { cache.release(stuck) }

        let loads = paths.map { path in
            Task { try await pipeline.response(for: ImageRequest(source: .url(server.url(for: path)))) }
        }
        let allStuck = await waitUntil(timeout: .seconds(30)) { cache.arrived.load(ordering: .acquiring) == stuck }
        #expect(allStuck, "\(stuck) stores reached the disk at once")
        let local = try await pipeline.response(for: ImageRequest(source: .data(Data(jpeg), id: "beside-the-stuck-stores")))
        let releasedBeforeTheDecode = cache.released.load(ordering: .acquiring)
        #expect(!releasedBeforeTheDecode, "decoded while every store was still stuck")
        #expect(local.pixels.width == 1600)

        cache.release(stuck)
        for (load, path) in zip(loads, paths) {
            let response = try await load.value
            #expect(response.diskCache == .stored)
            let key = ImageRequest(source: .url(server.url(for: path))).source.identity
            #expect(cache.entry(forKey: key) != nil, "the entry is visible once its load completed")
        }
        try await server.shutdown()
    }
}
