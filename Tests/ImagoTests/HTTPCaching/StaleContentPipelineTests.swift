import Foundation
import Testing
@testable import Imago
import ImagoTestServer

/// RFC 5861 through the pipeline against the loopback server, on an injected clock: a stale
/// entry within `stale-while-revalidate` serves at once while a background revalidation (held
/// at a gate) runs, and one within `stale-if-error` serves when the origin fails.
@Suite(.serialized)
struct StaleContentPipelineTests {
    private let png = TestCorpus.bytes("png/rgba-8.png")
    private let otherPNG = TestCorpus.bytes("png/gray-8.png")

    /// A server, a cache directory and a clock for one test; everything removed at the end.
    private final class Setup: Sendable {
        let server: TestServer
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-stale-\(UUID())")
        let clock = TestClock(Date())

        init() async throws { server = try await TestServer.start() }

        func end() async throws {
            try await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Serves `path` with `Cache-Control: cacheControl` and a `Date` from the clock.
        func serve(_ path: String, _ cacheControl: String, body: [UInt8], faults: Faults = Faults()) {
            var faults = faults
            faults.headers["Cache-Control"] = cacheControl
            faults.headers["Date"] = PolicyClock.httpDate(clock.now())
            server.setRoute(path, Route(body: body, contentType: "image/png", faults: faults))
        }

        /// A pipeline over the directory and clock, with no retries, and a memory cache when
        /// asked (which must not keep stale images).
        func pipeline(_ strategy: FetchStrategy, policy: HTTPCachePolicy = .http, memory: Bool = false) throws -> ImagePipeline {
            ImagePipeline(configuration: .init(
                dependencies: .init(memoryCache: memory ? MemoryCache() : nil, diskCache: try DiskCache(directory: directory),
                                    clock: clock.pipelineClock()),
                network: .init(fetchStrategy: strategy, httpCachePolicy: policy, retryPolicy: .none)))
        }

        func load(_ path: String, _ pipeline: ImagePipeline) async throws(ImageLoadingError) -> ImageResponse {
            try await pipeline.response(for: ImageRequest(source: .url(server.url(for: path))))
        }
    }

    @Test("stale-while-revalidate: served at once, a 304 in the background makes it fresh", arguments: FetchStrategy.allCases)
    func staleWhileRevalidateWith304(_ strategy: FetchStrategy) async throws {
        let setup = try await Setup()
        let path = "/swr-\(strategy).png"
        setup.serve(path, "max-age=60, stale-while-revalidate=600", body: png)
        #expect(try await setup.load(path, try setup.pipeline(strategy)).diskCache == .stored)
        setup.clock.advance(by: 120)
        let pipeline = try setup.pipeline(strategy, memory: true)
        let gate = Gate()
        setup.serve(path, "max-age=60, stale-while-revalidate=600", body: png, faults: Faults(gate: gate))

        let stale = try await setup.load(path, pipeline)   // returns while the revalidation is held
        #expect(stale.diskCache == .staleRevalidating)
        #expect(stale.origin == .disk)
        try await gate.waitUntilHeld()
        #expect(pipeline.backgroundRevalidationCount == 1)
        // Not from memory, and no second revalidation while one runs.
        #expect(try await setup.load(path, pipeline).diskCache == .staleRevalidating)
        #expect(setup.server.counters.requests(for: path) == 2)

        gate.open()
        let ended = await pipeline.waitForBackgroundRevalidations()
        #expect(ended.map(\.description) == ["revalidated"])
        #expect(setup.server.counters.conditionalRequests(for: path) == 1)
        #expect(try await setup.load(path, pipeline).diskCache == .fresh)
        #expect(setup.server.counters.requests(for: path) == 2)
        try await setup.end()
    }

    @Test("stale-while-revalidate: a new body fetched behind replaces the entry for the next pipeline")
    func staleWhileRevalidateReplaces() async throws {
        let setup = try await Setup()
        let path = "/swr-new.png"
        setup.serve(path, "max-age=60, stale-while-revalidate=600", body: png)
        #expect(try await setup.load(path, try setup.pipeline(.file)).diskCache == .stored)
        setup.clock.advance(by: 120)
        setup.serve(path, "max-age=60, stale-while-revalidate=600", body: otherPNG)
        let pipeline = try setup.pipeline(.file)
        #expect(try await setup.load(path, pipeline).diskCache == .staleRevalidating)
        #expect(await pipeline.waitForBackgroundRevalidations().map(\.diskCache) == [.replaced])
        let entry = try DiskCache(directory: setup.directory).entry(forKey: "url:" + setup.server.url(for: path).absoluteString)
        #expect(entry?.metadata.etag == Route(body: otherPNG, contentType: "image/png").entityTag)
        #expect(try await setup.load(path, try setup.pipeline(.data)).diskCache == .fresh)
        try await setup.end()
    }

    @Test("A background revalidation is cancellable: it ends as cancelled and the entry stays")
    func cancelled() async throws {
        let setup = try await Setup()
        let path = "/swr-cancel.png"
        setup.serve(path, "max-age=60, stale-while-revalidate=600", body: png)
        let pipeline = try setup.pipeline(.data)
        _ = try await setup.load(path, pipeline)
        setup.clock.advance(by: 120)
        let gate = Gate()
        setup.serve(path, "max-age=60, stale-while-revalidate=600", body: otherPNG, faults: Faults(gate: gate))
        #expect(try await setup.load(path, pipeline).diskCache == .staleRevalidating)
        try await gate.waitUntilHeld()
        pipeline.cancelBackgroundRevalidations()
        let ended = await pipeline.waitForBackgroundRevalidations()
        #expect(ended.map(\.failure) == [.cancelled])
        #expect(pipeline.backgroundRevalidationCount == 0)
        gate.open()
        setup.serve(path, "max-age=60, stale-while-revalidate=600", body: png)
        #expect(try await setup.load(path, pipeline).diskCache == .staleRevalidating, "the old entry, still stale")
        #expect(await pipeline.waitForBackgroundRevalidations().map(\.diskCache) == [.revalidated])
        try await setup.end()
    }

    /// What the origin does on the second load, and whether the stale entry then serves.
    struct OriginFailure: Sendable, CustomTestStringConvertible {
        let name: String
        let faults: Faults
        let servesStale: Bool
        var testDescription: String { name }
    }

    @Test("stale-if-error: the entry serves when the origin fails, not when it answers", arguments: [
        OriginFailure(name: "503", faults: Faults(status: 503), servesStale: true),
        OriginFailure(name: "504", faults: Faults(status: 504), servesStale: true),
        OriginFailure(name: "body cut off", faults: Faults(closeAfterBytes: 10), servesStale: true),
        OriginFailure(name: "404 is the origin's word", faults: Faults(status: 404), servesStale: false),
        OriginFailure(name: "501 is not among RFC 5861's errors", faults: Faults(status: 501), servesStale: false),
    ])
    func staleIfError(_ failure: OriginFailure) async throws {
        let setup = try await Setup()
        let path = "/sie.png"
        setup.serve(path, "max-age=60, stale-if-error=600", body: png)
        let pipeline = try setup.pipeline(.file)
        _ = try await setup.load(path, pipeline)
        setup.clock.advance(by: 120)
        // A new body, so no fault is answered by a 304 instead.
        setup.serve(path, "max-age=60, stale-if-error=600", body: otherPNG, faults: failure.faults)
        let outcome: Result<ImageResponse, ImageLoadingError>
        do throws(ImageLoadingError) {
            outcome = .success(try await setup.load(path, pipeline))
        } catch {
            outcome = .failure(error)
        }
        if failure.servesStale {
            #expect(try outcome.get().diskCache == DiskCacheOutcome.staleIfError)
            #expect(try outcome.get().origin == ImageOrigin.disk)
            setup.clock.advance(by: 600)   // past the window: the failure stands
            await #expect(throws: ImageLoadingError.self) { try await setup.load(path, pipeline) }
        } else {
            #expect(throws: ImageLoadingError.self) { try outcome.get() }
        }
        #expect(setup.server.counters.requests(for: path) == (failure.servesStale ? 3 : 2))
        try await setup.end()
    }

    @Test("stale-if-error: the entry serves when the origin cannot be reached")
    func unreachable() async throws {
        let setup = try await Setup()
        let path = "/sie-down.png"
        setup.serve(path, "max-age=60, stale-if-error=600", body: png)
        let pipeline = try setup.pipeline(.stream)
        _ = try await setup.load(path, pipeline)
        setup.clock.advance(by: 120)
        let url = setup.server.url(for: path)
        try await setup.server.shutdown()   // nothing listens on its port now
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        #expect(try await pipeline.response(for: ImageRequest(source: .url(url))).diskCache == .staleIfError)
    }

    @Test("A policy that serves no stale content ignores both directives")
    func policyOff() async throws {
        let setup = try await Setup()
        let path = "/never-stale.png"
        setup.serve(path, "max-age=60, stale-while-revalidate=600, stale-if-error=600", body: png)
        let pipeline = try setup.pipeline(.data, policy: HTTPCachePolicy(servesStale: false))
        _ = try await setup.load(path, pipeline)
        setup.clock.advance(by: 120)
        #expect(try await setup.load(path, pipeline).diskCache == .revalidated)
        setup.clock.advance(by: 120)
        setup.serve(path, "max-age=60, stale-while-revalidate=600, stale-if-error=600", body: png, faults: Faults(status: 503))
        await #expect(throws: ImageLoadingError.fetch(.httpStatus(503))) { try await setup.load(path, pipeline) }
        try await setup.end()
    }
}
