import Foundation
import ImagoTestServer
import XCTest
@testable import Imago

/// HTTP caching against a real nginx, every transport with every fetch strategy, a disk cache
/// per combination: what nginx's `expires`, `add_header Cache-Control`, `etag on|off` and
/// `Last-Modified` make Imago store, reuse and revalidate, with nginx's access log as the proof
/// of what was asked (status 304, no body bytes).
final class NginxHTTPCachingTests: NginxTestCase {
    static let file = "png/rgba-8.png"
    private var caches: URL!

    override func setUp() async throws {
        try await super.setUp()
        caches = FileManager.default.temporaryDirectory.appendingPathComponent("imago-nginx-http-cache-\(UUID())")
    }

    override func tearDown() async throws {
        try await super.tearDown()
        try? FileManager.default.removeItem(at: caches)
    }

    /// Locations serving the test image under each caching regime.
    private func start() async throws {
        let image = "files/image.png"
        _ = try await startNginx([
            .exact("/private.png", .alias(image), .header(name: "Cache-Control", value: "no-store")),
            .exact("/hour.png", .alias(image), .expires(seconds: 3600)),
            .exact("/no-cache.png", .alias(image), .header(name: "Cache-Control", value: "no-cache")),
            .exact("/stale.png", .alias(image), .expires(seconds: 0)),
            .exact("/date-only.png", .alias(image), .entityTags(false), .expires(seconds: 0)),
            .exact("/bare.png", .alias(image), .entityTags(false), .header(name: "Last-Modified", value: "")),
        ], files: [image: TestCorpus.bytes(Self.file)])
    }

    /// The combination's disk cache directory (the same one for every pipeline of the combination).
    private func cacheDirectory(_ combination: NginxCombination) -> URL {
        caches.appendingPathComponent("\(combination.transport.name)-\(combination.strategy.rawValue)")
    }

    /// A pipeline with a disk cache, its clock running `skew` seconds ahead of real time (nginx's
    /// clock), the way time passing between two app launches looks.
    private func cachingPipeline(_ combination: NginxCombination, skew: Double = 0) throws -> ImagePipeline {
        let disk = try DiskCache(directory: cacheDirectory(combination))
        return ImagePipeline(configuration: .init(
            dependencies: .init(transport: combination.transport.make(), memoryCache: nil, diskCache: disk,
                                clock: PipelineClock(now: { Date() + skew }, sleepingOn: ContinuousClock())),
            network: .init(fetchStrategy: combination.strategy, retryPolicy: .none),
            memory: .init(respondsToPressure: false)))
    }

    private func outcome(_ path: String, _ combination: NginxCombination, skew: Double = 0) async throws -> ImageResponse {
        try await load(try cachingPipeline(combination, skew: skew), request(path, combination)).get()
    }

    /// Files in the combination's cache directory other than its lock: entries, sidecars, downloads.
    private func cacheFiles(_ combination: NginxCombination) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: cacheDirectory(combination).path).filter { $0 != ".lock" }
    }

    func testNoStoreIsNeverOnDisk() async throws {
        try await start()
        try await forEachCombination { combination in
            for round in 1...2 {
                let response = try await outcome("/private.png", combination)
                XCTAssertEqual(response.origin, .network, "\(combination) round \(round)")
                XCTAssertEqual(response.diskCache, .notStored(.noStore))
                XCTAssertEqual(response.pixels, try localPixels(Self.file))
                XCTAssertEqual(try cacheFiles(combination), [], "\(combination): nothing written, no download left")
            }
            let value1 = try await logged(uri("/private.png", combination), atLeast: 2).map(\.status)
            XCTAssertEqual(value1, [200, 200])
        }
    }

    func testFreshEntryIsADiskHitWithNoRequest() async throws {
        try await start()
        try await forEachCombination { combination in
            let value2 = try await outcome("/hour.png", combination).diskCache
            XCTAssertEqual(value2, .stored)
            let again = try await outcome("/hour.png", combination, skew: 3000)
            XCTAssertEqual(again.origin, .disk)
            XCTAssertEqual(again.diskCache, .fresh, "\(combination): within nginx's expires 1h")
            XCTAssertEqual(again.pixels, try localPixels(Self.file))
            let log = try await logged(uri("/hour.png", combination), finalStatus: 200)
            XCTAssertEqual(log.count, 1, "\(combination): \(log)")
        }
    }

    func testStaleEntryIsRevalidatedWithA304() async throws {
        try await start()
        try await forEachCombination { combination in
            let value3 = try await outcome("/hour.png", combination).diskCache
            XCTAssertEqual(value3, .stored)
            // An hour and a bit later: stale, so If-None-Match with nginx's ETag, answered 304.
            let later = try await outcome("/hour.png", combination, skew: 3700)
            XCTAssertEqual(later.origin, .disk)
            XCTAssertEqual(later.diskCache, .revalidated, "\(combination)")
            XCTAssertEqual(later.pixels, try localPixels(Self.file))
            let log = try await logged(uri("/hour.png", combination), finalStatus: 304)
            XCTAssertEqual(log.map(\.status), [200, 304], "\(combination)")
            XCTAssertEqual(log.last?.bodyBytesSent, 0)
        }
    }

    func testNoCacheRevalidatesEveryUse() async throws {
        try await start()
        try await forEachCombination { combination in
            var outcomes: [DiskCacheOutcome?] = []
            for _ in 0..<3 { outcomes.append(try await outcome("/no-cache.png", combination).diskCache) }
            XCTAssertEqual(outcomes, [.stored, .revalidated, .revalidated], "\(combination)")
            let log = try await logged(uri("/no-cache.png", combination), atLeast: 3)
            XCTAssertEqual(log.map(\.status), [200, 304, 304], "\(combination)")
        }
    }

    func testExpiresZeroRevalidatesAndLastModifiedAloneIsAValidator() async throws {
        try await start()
        try await forEachCombination { combination in
            for path in ["/stale.png", "/date-only.png"] {
                let value4 = try await outcome(path, combination).diskCache
                XCTAssertEqual(value4, .stored)
                let second = try await outcome(path, combination)
                XCTAssertEqual(second.diskCache, .revalidated, "\(combination) \(path)")
                let value5 = try await logged(uri(path, combination), finalStatus: 304).map(\.status)
                XCTAssertEqual(value5, [200, 304])
            }
        }
    }

    func testAResponseWithoutFreshnessOrValidatorsIsNotStored() async throws {
        try await start()
        try await forEachCombination { combination in
            let response = try await outcome("/bare.png", combination)
            XCTAssertEqual(response.diskCache, .notStored(.notReusable), "\(combination): nothing to reuse it by")
            XCTAssertEqual(try cacheFiles(combination), [])
        }
    }
}
