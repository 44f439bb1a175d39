import Foundation
import ImagoTestServer
import Testing
@testable import Imago

/// A download to file that the disk cache stored and then evicted (another load's store needing
/// room) before this load decoded it still delivers its image: the load decodes the body it
/// holds open, not the cache's entry by name. Under load the eviction came between the store and
/// the decode now and then in the fault soak (`decoding(unreadable)`); here a disk cache that
/// evicts every entry the moment it is stored makes that order certain.
@Suite struct DiskEvictionRaceTests {
    /// Forwards to a real `DiskCache`, and removes each entry right after storing it.
    final class EvictingAtOnce: DiskCacheWrapping {
        let cache: DiskCache
        init(_ cache: DiskCache) { self.cache = cache }

        func store(_ data: Data, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
            let stored = try cache.store(data, forKey: key, metadata: metadata)
            try cache.removeEntry(forKey: key)
            return stored
        }
        func store(fileAt url: URL, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
            let stored = try cache.store(fileAt: url, forKey: key, metadata: metadata)
            try cache.removeEntry(forKey: key)
            return stored
        }
    }

    @Test(arguments: ["ahc", "urlsession"])
    func anEntryEvictedBeforeItsDecodeStillDeliversTheImage(_ transport: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("eviction-race-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestServer.start()
        let jpeg = TestCorpus.bytes("jpeg/baseline-420-q90.jpg")
        server.setRoute("/a.jpg", Route(body: jpeg, contentType: "image/jpeg", faults: Faults(headers: ["Cache-Control": "max-age=600"])))
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(transport: transport == "ahc" ? AsyncHTTPClientTransport() : URLSessionTransport(),
                                memoryCache: nil, diskCache: EvictingAtOnce(try DiskCache(directory: directory))),
            network: .init(fetchStrategy: .file, temporaryDirectory: directory)))
        let response: ImageResponse
        do {
            response = try await pipeline.response(for: ImageRequest(source: .url(server.url(for: "/a.jpg"))))
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
        #expect(response.image.pixels == (try ImageDecoder.decode(jpeg).pixels))
        // The load left nothing of its own in the directory: only the cache's lock is there.
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != ".lock" }
        #expect(left.isEmpty, "\(left)")
    }
}
