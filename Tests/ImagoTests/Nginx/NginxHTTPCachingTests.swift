import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// HTTP caching against a real nginx, every transport with every fetch strategy, a disk cache
    /// per combination: what nginx's `expires`, `add_header Cache-Control`, `etag on|off` and
    /// `Last-Modified` make Imago store, reuse and revalidate, with nginx's access log as the
    /// proof of what was asked (status 304, no body bytes).
    @Suite struct NginxHTTPCachingTests {
        static let file = "png/rgba-8.png"

        /// One test case's nginx (locations serving the test image under each caching regime)
        /// and the combination's disk cache directory, the same for every pipeline of the case.
        private struct World {
            let fixture: NginxFixture
            let combination: NginxCombination
            let cacheDirectory: URL

            /// A pipeline with a disk cache, its clock running `skew` seconds ahead of real time
            /// (nginx's clock), the way time passing between two app launches looks.
            func cachingPipeline(skew: Double = 0) throws -> ImagePipeline {
                let disk = try DiskCache(directory: cacheDirectory)
                return ImagePipeline(configuration: .init(
                    dependencies: .init(transport: combination.transport.make(), memoryCache: nil, diskCache: disk,
                                        clock: PipelineClock(now: { Date() + skew }, sleepingOn: ContinuousClock())),
                    network: .init(fetchStrategy: combination.strategy, retryPolicy: .none),
                    memory: .init(respondsToPressure: false)))
            }

            func outcome(_ path: String, skew: Double = 0) async throws -> ImageResponse {
                try await fixture.load(try cachingPipeline(skew: skew), fixture.request(path, combination)).get()
            }

            /// Files in the cache directory other than its lock: entries, sidecars, downloads.
            func cacheFiles() throws -> [String] {
                try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path).filter { $0 != ".lock" }
            }

            func uri(_ path: String) -> String { fixture.uri(path, combination) }
        }

        private func withWorld(_ combination: NginxCombination, _ body: (World) async throws -> Void) async throws {
            let image = "files/image.png"
            try await TemporaryDirectory.with("imago-nginx-http-cache") { caches in
                try await NginxFixture.with([
                    .exact("/private.png", .alias(image), .header(name: "Cache-Control", value: "no-store")),
                    .exact("/hour.png", .alias(image), .expires(seconds: 3600)),
                    .exact("/no-cache.png", .alias(image), .header(name: "Cache-Control", value: "no-cache")),
                    .exact("/stale.png", .alias(image), .expires(seconds: 0)),
                    .exact("/date-only.png", .alias(image), .entityTags(false), .expires(seconds: 0)),
                    .exact("/bare.png", .alias(image), .entityTags(false), .header(name: "Last-Modified", value: "")),
                    .exact("/swr.png", .alias(image), .header(name: "Cache-Control", value: "max-age=1, stale-while-revalidate=600")),
                ], files: [image: TestCorpus.bytes(Self.file)]) { fixture in
                    try await body(World(fixture: fixture, combination: combination, cacheDirectory: caches.appendingPathComponent("cache")))
                }
            }
        }

        @Test(arguments: NginxCombination.all)
        func noStoreIsNeverOnDisk(_ combination: NginxCombination) async throws {
            try await withWorld(combination) { world in
                for round in 1...2 {
                    let response = try await world.outcome("/private.png")
                    #expect(response.origin == .network, "\(combination) round \(round)")
                    #expect(response.diskCache == .notStored(.noStore))
                    try #expect(response.pixels == world.fixture.localPixels(Self.file))
                    try #expect(world.cacheFiles() == [], "\(combination): nothing written, no download left")
                }
                let statuses = try await world.fixture.logged(world.uri("/private.png"), atLeast: 2).map(\.status)
                #expect(statuses == [200, 200])
            }
        }

        @Test(arguments: NginxCombination.all)
        func freshEntryIsADiskHitWithNoRequest(_ combination: NginxCombination) async throws {
            try await withWorld(combination) { world in
                let first = try await world.outcome("/hour.png").diskCache
                #expect(first == .stored)
                let again = try await world.outcome("/hour.png", skew: 3000)
                #expect(again.origin == .disk)
                #expect(again.diskCache == .fresh, "\(combination): within nginx's expires 1h")
                try #expect(again.pixels == world.fixture.localPixels(Self.file))
                let log = try await world.fixture.logged(world.uri("/hour.png"), finalStatus: 200)
                #expect(log.count == 1, "\(combination): \(log)")
            }
        }

        @Test(arguments: NginxCombination.all)
        func staleEntryIsRevalidatedWithA304(_ combination: NginxCombination) async throws {
            try await withWorld(combination) { world in
                let first = try await world.outcome("/hour.png").diskCache
                #expect(first == .stored)
                // An hour and a bit later: stale, so If-None-Match with nginx's ETag, answered 304.
                let later = try await world.outcome("/hour.png", skew: 3700)
                #expect(later.origin == .disk)
                #expect(later.diskCache == .revalidated, "\(combination)")
                try #expect(later.pixels == world.fixture.localPixels(Self.file))
                let log = try await world.fixture.logged(world.uri("/hour.png"), finalStatus: 304)
                #expect(log.map(\.status) == [200, 304], "\(combination)")
                #expect(log.last?.bodyBytesSent == 0)
            }
        }

        @Test(arguments: NginxCombination.all)
        func staleWhileRevalidateServesAtOnceAndRevalidatesBehind(_ combination: NginxCombination) async throws {
            try await withWorld(combination) { world in
                #expect(try await world.outcome("/swr.png").diskCache == .stored)
                // A minute later: stale for max-age=1, within stale-while-revalidate=600.
                let pipeline = try world.cachingPipeline(skew: 60)
                let stale = try await world.fixture.load(pipeline, world.fixture.request("/swr.png", combination)).get()
                #expect(stale.origin == .disk)
                #expect(stale.diskCache == .staleRevalidating, "\(combination)")
                try #expect(stale.pixels == world.fixture.localPixels(Self.file))
                let behind = await pipeline.waitForBackgroundRevalidations()
                #expect(behind.map(\.diskCache) == [.revalidated], "\(combination): \(behind)")
                let log = try await world.fixture.logged(world.uri("/swr.png"), finalStatus: 304)
                #expect(log.map(\.status) == [200, 304], "\(combination)")
                #expect(log.last?.bodyBytesSent == 0)
            }
        }

        @Test(arguments: NginxCombination.all)
        func noCacheRevalidatesEveryUse(_ combination: NginxCombination) async throws {
            try await withWorld(combination) { world in
                var outcomes: [DiskCacheOutcome?] = []
                for _ in 0..<3 { outcomes.append(try await world.outcome("/no-cache.png").diskCache) }
                #expect(outcomes == [.stored, .revalidated, .revalidated], "\(combination)")
                let log = try await world.fixture.logged(world.uri("/no-cache.png"), atLeast: 3)
                #expect(log.map(\.status) == [200, 304, 304], "\(combination)")
            }
        }

        @Test(arguments: NginxCombination.all)
        func expiresZeroRevalidatesAndLastModifiedAloneIsAValidator(_ combination: NginxCombination) async throws {
            try await withWorld(combination) { world in
                for path in ["/stale.png", "/date-only.png"] {
                    let first = try await world.outcome(path).diskCache
                    #expect(first == .stored)
                    let second = try await world.outcome(path)
                    #expect(second.diskCache == .revalidated, "\(combination) \(path)")
                    let statuses = try await world.fixture.logged(world.uri(path), finalStatus: 304).map(\.status)
                    #expect(statuses == [200, 304])
                }
            }
        }

        @Test(arguments: NginxCombination.all)
        func aResponseWithoutFreshnessOrValidatorsIsNotStored(_ combination: NginxCombination) async throws {
            try await withWorld(combination) { world in
                let response = try await world.outcome("/bare.png")
                #expect(response.diskCache == .notStored(.notReusable), "\(combination): nothing to reuse it by")
                try #expect(world.cacheFiles() == [])
            }
        }
    }
}
