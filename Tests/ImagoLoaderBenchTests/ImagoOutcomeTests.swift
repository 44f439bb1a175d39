import Foundation
import ImagoBench
import ImagoConformance
import ImagoConformanceSubjects
import ImagoTestServer
import Testing

/// Imago's adapter reports how a load ended through `OutcomeObserving`, which the loader bench
/// times instead of `observe(_:)` (whose success phase carries a SHA-256 of the pixels).
@Suite struct ImagoOutcomeTests {
    /// The outcomes a model of `url` reports through `observeOutcome(_:)` once `load()` is called,
    /// up to the first one.
    @MainActor
    static func outcome(of loader: any LoaderUnderTest, _ url: URL) async throws -> ObservedOutcome {
        let model = loader.makeModel(source: ConformanceSource(url: url))
        let observing = try #require(model as? any OutcomeObserving, "Imago's model offers OutcomeObserving")
        let (stream, continuation) = AsyncStream.makeStream(of: ObservedOutcome.self)
        observing.observeOutcome { continuation.yield($0) }
        model.load()
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        withExtendedLifetime(model) {}
        return first
    }

    @MainActor
    @Test func successesCarryOriginAndSizeAndFailuresTheirCategory() async throws {
        let server = try await TestServer.start()
        let image = try DistinctImages.make(count: 1, width: 64, height: 48)[0]
        server.setRoute("/a.jpg", Route(body: image, contentType: "image/jpeg"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = try ImagoSubjects.subject(strategy: .data, caches: .memory)
            .makeLoader(LoaderContext(cacheDirectory: directory, temporaryDirectory: directory))
        #expect(try await Self.outcome(of: loader, server.url(for: "/a.jpg")) == .success(origin: .network, width: 64, height: 48))
        #expect(try await Self.outcome(of: loader, server.url(for: "/a.jpg")) == .success(origin: .memory, width: 64, height: 48))
        #expect(try await Self.outcome(of: loader, server.url(for: "/missing.jpg")) == .failure(.httpStatus(404)))
        try await server.shutdown()
    }
}
