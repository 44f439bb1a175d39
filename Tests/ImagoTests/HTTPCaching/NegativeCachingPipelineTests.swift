import Foundation
import Testing
@testable import Imago
import ImagoTestServer

/// Negative caching through the pipeline against the loopback server, on an injected clock: a
/// 404 or 410 with freshness is remembered on disk, repeated without a request while fresh (by
/// a new pipeline too: it is on disk), fetched again once stale, and replaced by a 200; a failure
/// without freshness, a 5xx, or any failure with no disk cache is never remembered (ERR-4).
@Suite(.serialized)
struct NegativeCachingPipelineTests {
    private let png = TestCorpus.bytes("png/rgba-8.png")

    /// A server, a cache directory and a clock for one test; everything removed at the end.
    private final class Setup: Sendable {
        let server: TestServer
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-negative-\(UUID())")
        let clock = TestClock(Date())

        init() async throws { server = try await TestServer.start() }

        func end() async throws {
            try await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Serves `path` failing with `status` and `headers`, with a `Date` from the clock.
        func fail(_ path: String, _ status: Int, _ headers: [String: String]) {
            var faults = Faults(status: status)
            faults.headers = headers.merging(["Date": PolicyClock.httpDate(clock.now())]) { $1 }
            server.setRoute(path, Route(body: [], faults: faults))
        }

        /// Serves `path` with `body` as a PNG fresh for a minute.
        func serve(_ path: String, body: [UInt8]) {
            let faults = Faults(headers: ["Cache-Control": "max-age=60", "Date": PolicyClock.httpDate(clock.now())])
            server.setRoute(path, Route(body: body, contentType: "image/png", faults: faults))
        }

        /// A new pipeline over the directory (none: no disk cache) and clock, with no retries.
        func pipeline(_ strategy: FetchStrategy = .data, disk: Bool = true) throws -> ImagePipeline {
            ImagePipeline(configuration: .init(
                dependencies: .init(memoryCache: nil, diskCache: disk ? try DiskCache(directory: directory) : nil,
                                    clock: clock.pipelineClock()),
                network: .init(fetchStrategy: strategy, retryPolicy: .none)))
        }

        /// The load's outcome.
        func load(_ path: String, _ pipeline: ImagePipeline) async -> Result<ImageResponse, ImageLoadingError> {
            do throws(ImageLoadingError) {
                return .success(try await pipeline.response(for: ImageRequest(source: .url(server.url(for: path)))))
            } catch {
                return .failure(error)
            }
        }

        func requests(_ path: String) -> Int { server.counters.requests(for: path) }
    }

    @Test("A fresh 404 repeats without a request, a stale one asks again, and a 200 replaces it",
          arguments: FetchStrategy.allCases)
    func rememberedWhileFresh(_ strategy: FetchStrategy) async throws {
        let setup = try await Setup()
        let path = "/gone-\(strategy).png"
        setup.fail(path, 404, ["Cache-Control": "max-age=60"])
        let first = try setup.pipeline(strategy)
        #expect(await setup.load(path, first).failure == .fetch(.httpStatus(404)))
        #expect(first.counters.snapshot.diskStores == 1)

        // A new pipeline over the same directory: the failure is on disk, not in the pipeline.
        let second = try setup.pipeline(strategy)
        setup.clock.advance(by: 59)
        #expect(await setup.load(path, second).failure == .fetch(.httpStatus(404)))
        #expect(setup.requests(path) == 1, "repeated without a request while fresh")
        #expect(second.counters.snapshot.diskRememberedFailures == 1)
        #expect(second.counters.snapshot.fetches == 0)

        setup.clock.advance(by: 2)
        setup.serve(path, body: png)
        #expect(try await setup.load(path, second).get().diskCache == .replaced, "stale: asked again, the 200 replaces it")
        #expect(setup.requests(path) == 2)
        #expect(try await setup.load(path, second).get().diskCache == .fresh)
        #expect(setup.requests(path) == 2)
        try await setup.end()
    }

    @Test("A 410 with Expires is remembered until then")
    func goneWithExpires() async throws {
        let setup = try await Setup()
        setup.fail("/gone.png", 410, ["Expires": PolicyClock.httpDate(setup.clock.now() + 300)])
        let pipeline = try setup.pipeline()
        #expect(await setup.load("/gone.png", pipeline).failure == .fetch(.httpStatus(410)))
        setup.clock.advance(by: 299)
        #expect(await setup.load("/gone.png", pipeline).failure == .fetch(.httpStatus(410)))
        #expect(setup.requests("/gone.png") == 1)
        setup.clock.advance(by: 2)
        #expect(await setup.load("/gone.png", pipeline).failure == .fetch(.httpStatus(410)))
        #expect(setup.requests("/gone.png") == 2)
        try await setup.end()
    }

    struct Forgotten: CustomTestStringConvertible, Sendable {
        let name: String
        let status: Int
        let headers: [String: String]
        var disk = true
        var testDescription: String { name }
    }

    @Test("Never remembered: every load asks again (ERR-4)", arguments: [
        Forgotten(name: "404 without freshness", status: 404, headers: [:]),
        Forgotten(name: "404 with no-store", status: 404, headers: ["Cache-Control": "no-store, max-age=60"]),
        Forgotten(name: "500 with max-age (RETRY-1's business)", status: 500, headers: ["Cache-Control": "max-age=60"]),
        Forgotten(name: "404 with max-age but no disk cache", status: 404, headers: ["Cache-Control": "max-age=60"],
                  disk: false),
    ])
    func neverRemembered(_ row: Forgotten) async throws {
        let setup = try await Setup()
        setup.fail("/missing.png", row.status, row.headers)
        let pipeline = try setup.pipeline(disk: row.disk)
        for _ in 0..<2 {
            #expect(await setup.load("/missing.png", pipeline).failure == .fetch(.httpStatus(row.status)))
        }
        #expect(setup.requests("/missing.png") == 2)
        #expect(pipeline.counters.snapshot.diskRememberedFailures == 0)
        if row.disk { #expect(try DiskCache(directory: setup.directory).entryCount == 0) }
        try await setup.end()
    }
}

