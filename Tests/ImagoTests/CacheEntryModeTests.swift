import Foundation
import ImagoTestServer
import Testing
@testable import Imago

/// Every fetch strategy leaves its disk cache entry with the same mode: 0644 less the umask.
/// A download to file becomes the entry by a rename, and its partial was created 0600, so its
/// entries were private while the other strategies' were not.
@Suite struct CacheEntryModeTests {
    @Test(arguments: FetchStrategy.allCases)
    func anEntryHasTheModeOfEveryOtherEntry(_ strategy: FetchStrategy) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entry-mode-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestServer.start()
        let jpeg = TestCorpus.bytes("jpeg/baseline-420-q90.jpg")
        server.setRoute("/a.jpg", Route(body: jpeg, contentType: "image/jpeg", faults: Faults(headers: ["Cache-Control": "max-age=600"])))
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(transport: AsyncHTTPClientTransport(), memoryCache: nil, diskCache: try DiskCache(directory: directory)),
            network: .init(fetchStrategy: strategy, temporaryDirectory: directory)))
        do {
            _ = try await pipeline.response(for: ImageRequest(source: .url(server.url(for: "/a.jpg"))))
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
        // The payload: the one file named by a 64-digit hash (its sidecar ends in .meta).
        let payloads = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.count == 64 && $0.allSatisfy(\.isHexDigit) }
        #expect(payloads.count == 1, "\(payloads)")
        for payload in payloads {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(payload).path)
            let mode = try #require(attributes[.posixPermissions] as? Int)
            // The process's umask, read without setting it (umask(2) has no read-only form).
            let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
            let mask = try #require(Int(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
            #expect(mode == 0o644 & ~mask, "mode \(String(mode, radix: 8)) for \(strategy)")
        }
    }
}
