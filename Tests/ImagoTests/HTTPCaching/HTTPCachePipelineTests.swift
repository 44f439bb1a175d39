import Foundation
import XCTest
@testable import Imago
import ImagoTestServer

/// The pipeline applies the HTTP cache policy against the loopback server, for both fetch
/// strategies: what reaches the disk, which loads ask the server, and what each load reports.
/// The pipeline's clock is injected (its dates; the disk cache keeps real time for its own
/// bookkeeping), and routes send a `Date` from it (`serve`).
final class HTTPCachePipelineTests: XCTestCase {
    private var server: TestServer!
    private var directory: URL!
    private let clock = TestClock(Date())
    private let png = TestCorpus.bytes("png/rgba-8.png")
    private let otherPNG = TestCorpus.bytes("png/gray-8.png")

    override func setUp() async throws {
        server = try await TestServer.start()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-http-cache-\(UUID())")
    }

    override func tearDown() async throws {
        try await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Serves `path`, with `Date` from the injected clock (as a server whose clock agrees with
    /// the client's would send it): call again after advancing the clock.
    private func serve(_ path: String, _ cacheControl: String?, body: [UInt8]? = nil) {
        var headers = cacheControl.map { ["Cache-Control": $0] } ?? [:]
        headers["Date"] = PolicyClock.httpDate(clock.now())
        server.setRoute(path, Route(body: body ?? png, contentType: "image/png", faults: Faults(headers: headers)))
    }

    /// A new pipeline (a "restart") over the same cache directory and clock.
    private func pipeline(_ strategy: FetchStrategy, _ policy: HTTPCachePolicy = .http,
                          events: (@Sendable (PipelineEvent) -> Void)? = nil) throws -> ImagePipeline {
        let disk = try DiskCache(directory: directory)
        return ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil, diskCache: disk, clock: clock.pipelineClock()),
            network: .init(fetchStrategy: strategy, httpCachePolicy: policy, retryPolicy: .none),
            diagnostics: .init(eventHandler: events)))
    }

    private func load(_ path: String, _ pipeline: ImagePipeline) async throws -> ImageResponse {
        try await pipeline.response(for: ImageRequest(source: .url(server.url(for: path))))
    }

    /// Names in the cache directory other than its lock file.
    private func cacheFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != ".lock" }.sorted()
    }

    func testNoStoreIsShownButNeverWrittenToDisk() async throws {
        for strategy in FetchStrategy.allCases {
            let path = "/private-\(strategy).png"
            serve(path, "no-store")
            let pipeline = try pipeline(strategy)
            let first = try await load(path, pipeline)
            XCTAssertEqual(first.origin, .network)
            XCTAssertEqual(first.diskCache, .notStored(.noStore))
            XCTAssertEqual(try cacheFiles(), [], "\(strategy): no entry and no download left in the cache directory (HTTP-1)")
            let second = try await load(path, try self.pipeline(strategy))
            XCTAssertEqual(second.origin, .network, "never served from disk later")
            XCTAssertEqual(server.counters.requests(for: path), 2)
            XCTAssertEqual(pipeline.counters.snapshot.diskNotStored, 1)
            XCTAssertEqual(pipeline.counters.snapshot.diskStores, 0)
        }
    }

    func testFreshEntryIsADiskHitWithNoRequest() async throws {
        for strategy in FetchStrategy.allCases {
            let path = "/fresh-\(strategy).png"
            serve(path, "max-age=60")
            let first = try await load(path, try pipeline(strategy))
            XCTAssertEqual(first.diskCache, .stored)
            // Not 59: the server's Date has whole seconds, so up to a second of apparent age.
            clock.advance(by: 55)
            let events = EventKinds()
            let restarted = try pipeline(strategy, events: { events.append($0.kind) })
            let second = try await load(path, restarted)
            XCTAssertEqual(second.origin, .disk)
            XCTAssertEqual(second.diskCache, .fresh)
            XCTAssertEqual(second.pixels, first.pixels)
            XCTAssertEqual(server.counters.requests(for: path), 1)
            XCTAssertEqual(events.count(.diskFresh), 1)
            XCTAssertEqual(restarted.counters.snapshot.diskFreshHits, 1)
            XCTAssertEqual(restarted.counters.snapshot.fetches, 0)
        }
    }

    func testStaleEntryIsRevalidatedAnd304RefreshesIt() async throws {
        for strategy in FetchStrategy.allCases {
            let path = "/stale-\(strategy).png"
            serve(path, "max-age=60")
            let first = try await load(path, try pipeline(strategy))
            // The server counts a write once it completes, which can be after the client read it.
            try await server.counters.waitUntil { $0.responsesCompleted(for: path) >= 1 }
            let bodyBytes = server.counters.bodyBytesSent(for: path)
            clock.advance(by: 61)
            serve(path, "max-age=60")
            let events = EventKinds()
            let restarted = try pipeline(strategy, events: { events.append($0.kind) })
            let second = try await load(path, restarted)
            XCTAssertEqual(second.origin, .disk, "a 304 serves the stored bytes as a disk hit")
            XCTAssertEqual(second.diskCache, .revalidated)
            XCTAssertEqual(second.pixels, first.pixels)
            XCTAssertEqual(server.counters.requests(for: path), 2, "one conditional request")
            try await server.counters.waitUntil { $0.responsesCompleted(for: path) >= 2 }
            XCTAssertEqual(server.counters.bodyBytesSent(for: path), bodyBytes, "answered without a body (304)")
            XCTAssertEqual(events.count(.revalidated), 1)
            XCTAssertEqual(restarted.counters.snapshot.diskRevalidations, 1)
            clock.advance(by: 55)
            let third = try await load(path, try pipeline(strategy))
            XCTAssertEqual(third.diskCache, .fresh, "the 304 restarted the entry's freshness")
            XCTAssertEqual(server.counters.requests(for: path), 2)
        }
    }

    func testNoCacheRevalidatesEveryUse() async throws {
        for strategy in FetchStrategy.allCases {
            let path = "/no-cache-\(strategy).png"
            serve(path, "no-cache")
            let pipeline = try pipeline(strategy)
            var outcomes: [DiskCacheOutcome?] = []
            for _ in 0..<3 { outcomes.append(try await load(path, pipeline).diskCache) }
            XCTAssertEqual(outcomes, [.stored, .revalidated, .revalidated])
            XCTAssertEqual(server.counters.requests(for: path), 3)
        }
    }

    func testAChangedResourceReplacesTheEntry() async throws {
        for strategy in FetchStrategy.allCases {
            let path = "/changing-\(strategy).png"
            serve(path, "max-age=60")
            _ = try await load(path, try pipeline(strategy))
            serve(path, "max-age=60", body: otherPNG)   // a new body, so a new ETag: If-None-Match fails
            clock.advance(by: 61)
            let changed = try await load(path, try pipeline(strategy))
            XCTAssertEqual(changed.origin, .network)
            XCTAssertEqual(changed.diskCache, .replaced)
            let expected = try await ImageDecoder.decode(Data(otherPNG))
            XCTAssertEqual(changed.pixels, expected.pixels)
            let key = ImageRequest(source: .url(server.url(for: path))).source.identity
            XCTAssertEqual(try pipeline(strategy).configuration.dependencies.diskCache?.entry(forKey: key)?.byteCount, otherPNG.count)
        }
    }

    func testANewNoStoreAnswerRemovesTheOlderEntry() async throws {
        for strategy in FetchStrategy.allCases {
            let path = "/turned-private-\(strategy).png"
            serve(path, "no-cache")
            let outcome1 = try await load(path, try pipeline(strategy)).diskCache
            XCTAssertEqual(outcome1, .stored)
            serve(path, "no-store", body: otherPNG)
            let now = try await load(path, try pipeline(strategy))
            XCTAssertEqual(now.diskCache, .notStored(.noStore))
            XCTAssertEqual(try cacheFiles(), [], "the server's newest answer forbids keeping any copy")
        }
    }

    func testABrokenNoStoreDownloadLeavesNoPartialForLater() async throws {
        server.setRoute("/private-big.png", Route(body: png, contentType: "image/png",
                                                  faults: Faults(closeAfterBytes: png.count / 2, headers: ["Cache-Control": "no-store"])))
        do {
            _ = try await load("/private-big.png", try pipeline(.file))
            XCTFail("a truncated body succeeded")
        } catch {
            XCTAssertEqual(error as? ImageLoadingError, .fetch(.truncated(expected: png.count, received: png.count / 2)))
        }
        XCTAssertEqual(try cacheFiles(), [], "not even part of a no-store body is kept for a later resume (HTTP-1)")
    }

    func testA304NamingAnotherETagIsNotTrustedAndTheImageIsFetchedAgain() async throws {
        serve("/lying.png", "no-cache")
        _ = try await load("/lying.png", try pipeline(.data))
        // The revalidation gets a 304 for another representation: it confirms nothing stored.
        server.setRoute("/lying.png", Route(body: otherPNG, contentType: "image/png", faults: Faults(headers: ["Cache-Control": "no-cache"]))
            .failFirst(1, with: Faults(status: 304, headers: ["ETag": "\"someone-else\"", "Cache-Control": "no-cache"])))
        let response = try await load("/lying.png", try pipeline(.data))
        XCTAssertEqual(response.diskCache, .replaced)
        let current = try await ImageDecoder.decode(Data(otherPNG)).pixels
        XCTAssertEqual(response.pixels, current, "the server's current image, not the stored one")
        XCTAssertEqual(server.counters.requests(for: "/lying.png"), 3, "the conditional request, then a plain one")
    }

    func testA304ForAnEntryEvictedMeanwhileFetchesTheImageAgain() async throws {
        for strategy in FetchStrategy.allCases {
            let path = "/evicted-\(strategy).png"
            serve(path, "no-cache")
            _ = try await load(path, try pipeline(strategy))
            let key = ImageRequest(source: .url(server.url(for: path))).source.identity
            let disk = try DiskCache(directory: directory)
            // Another process evicts the entry while the conditional request is on its way.
            let evicted = Latch()
            let pipeline = try pipeline(strategy, events: { event in
                if event.kind == .fetchStart, !evicted.isSet { try? disk.removeEntry(forKey: key); evicted.set() }
            })
            let response = try await load(path, pipeline)
            XCTAssertEqual(response.origin, .network, "\(strategy)")
            XCTAssertEqual(response.diskCache, .stored, "\(strategy): the 304 had nothing to serve; a plain fetch did")
            XCTAssertEqual(server.counters.requests(for: path), 3)
        }
    }

    func testAggressiveStoresEverythingButNoStoreAndNeverAsks() async throws {
        serve("/said-nothing.png", "no-cache")
        serve("/private.png", "no-store")
        let pipeline = try pipeline(.data, .aggressive)
        let outcome2 = try await load("/said-nothing.png", pipeline).diskCache
        XCTAssertEqual(outcome2, .stored)
        clock.advance(by: 10 * 365 * 86_400)
        let outcome3 = try await load("/said-nothing.png", pipeline).diskCache
        XCTAssertEqual(outcome3, .fresh)
        XCTAssertEqual(server.counters.requests(for: "/said-nothing.png"), 1)
        let outcome4 = try await load("/private.png", pipeline).diskCache
        XCTAssertEqual(outcome4, .notStored(.noStore))
    }

    func testTimeToLiveOverridesTheServer() async throws {
        serve("/long.png", "max-age=86400")
        let policy = HTTPCachePolicy(timeToLive: .seconds(5))
        _ = try await load("/long.png", try pipeline(.data, policy))
        clock.advance(by: 6)
        let outcome5 = try await load("/long.png", try pipeline(.data, policy)).diskCache
        XCTAssertEqual(outcome5, .revalidated)
        let outcome6 = try await load("/long.png", try pipeline(.data, .init(alwaysRevalidate: true))).diskCache
        XCTAssertEqual(outcome6, .revalidated)
        XCTAssertEqual(server.counters.requests(for: "/long.png"), 3)
    }
}
