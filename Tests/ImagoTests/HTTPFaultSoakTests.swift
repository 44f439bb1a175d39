import Foundation
import ImagoCorpus
import ImagoConformance
import ImagoTestServer
import ImagoTestSupport
import Synchronization
import XCTest
@_spi(Testing) @testable import Imago

/// A bounded, seeded soak of the whole pipeline against the loopback server's faults: resets,
/// stalls beyond the idle timeout, truncation, 5xx bursts, slow drip, lying Content-Types,
/// oversized bodies and cancellations at three points. Every load must end in exactly the one
/// outcome its fault calls for, and afterwards nothing may be left: no work in flight, no
/// descriptors, temporary files or connections, and resident memory back within a margin.
///
/// 200 loads in the normal suite; `make soak` runs 2,000 (`IMAGO_SOAK_LOADS`, `IMAGO_SOAK_SEED`).
final class HTTPFaultSoakTests: XCTestCase {
    static let environment = ProcessInfo.processInfo.environment
    static let loads = environment["IMAGO_SOAK_LOADS"].flatMap(Int.init) ?? 200
    static let seed = environment["IMAGO_SOAK_SEED"].flatMap(UInt64.init) ?? 20_261_122
    /// Resident memory may end this much above where it started: allocator caches and
    /// URLSession's and NIO's pools keep some pages; a leak of every image would be far more.
    /// Default 48 MiB; `IMAGO_SOAK_RESIDENT_MARGIN_MB` widens it (AddressSanitizer's quarantine
    /// holds freed memory on purpose).
    static let residentMarginBytes = (environment["IMAGO_SOAK_RESIDENT_MARGIN_MB"].flatMap(Int.init) ?? 48) << 20

    /// Descriptors that may stay open after the soak (default 0: none). `make test-tsan` allows
    /// 4: under ThreadSanitizer two descriptors were once seen open 20 s after the soak, cause not
    /// yet found, while every plain run (the leak check that counts) ends at the baseline.
    static let descriptorSlack = environment["IMAGO_SOAK_DESCRIPTOR_SLACK"].flatMap(Int.init) ?? 0

    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imago-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    /// The transports a soak can run through: a fresh instance per soak, released (and, for
    /// AsyncHTTPClient, shut down) at its end.
    enum SoakTransport: String {
        case urlSession, asyncHTTPClient

        func make() -> any ImageTransport & AnyObject {
            switch self {
            case .urlSession: URLSessionTransport()
            case .asyncHTTPClient: AsyncHTTPClientTransport()
            }
        }
    }

    func testSeededFaultSoakEndsEveryLoadOnceAndLeaksNothing() async throws {
        try await soakLeavingNothing(through: .urlSession)
    }

    /// The same soak through the Linux default transport's implementation.
    func testSeededFaultSoakThroughAsyncHTTPClientEndsEveryLoadOnceAndLeaksNothing() async throws {
        try await soakLeavingNothing(through: .asyncHTTPClient)
    }

    private func soakLeavingNothing(through kind: SoakTransport) async throws {
        // One small round first, so one-time process state (URLSession's and NIO's globals,
        // dispatch threads) is in place before the baseline is taken.
        _ = try await soak(loads: 16, seed: Self.seed &+ 1, name: "warm-up-\(kind.rawValue)", through: kind)
        PixelMemory.trim()
        let before = ProcessResources.now()
        let report = try await soak(loads: Self.loads, seed: Self.seed, name: "soak-\(kind.rawValue)", through: kind)
        PixelMemory.trim()
        // An invalidated URLSession closes its libcurl handles on its own queue, a moment later.
        try await eventually("descriptors above the baseline of \(before.fileDescriptors)") {
            ProcessResources.now().fileDescriptors <= before.fileDescriptors + Self.descriptorSlack
        }
        let after = ProcessResources.now()
        XCTAssertLessThanOrEqual(after.fileDescriptors, before.fileDescriptors + Self.descriptorSlack,
                       "descriptors open afterwards: \(ProcessResources.openDescriptorTargets())")
        XCTAssertLessThanOrEqual(after.residentBytes - before.residentBytes, Self.residentMarginBytes,
                                 "resident memory \(before) -> \(after)")
        print("HTTPFaultSoakTests: \(report); before: \(before); after: \(after)")
    }

    /// Runs `loads` seeded loads through a fresh pipeline and server, checks every outcome and
    /// that everything was released, and returns a one-line summary.
    private func soak(loads: Int, seed: UInt64, name: String, through kind: SoakTransport) async throws -> String {
        let image = TestCorpus.bytes("jpeg/baseline-420-q90.jpg")
        let reference = try ImageDecoder.decode(image).pixels
        let maxResponseSize = 256 << 10
        let oversized = image + [UInt8](repeating: 0xA5, count: 8 << 20)
        let downloads = scratch.appendingPathComponent("\(name)-downloads")
        let cacheDirectory = scratch.appendingPathComponent("\(name)-cache")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)

        let server = try await TestServer.start()
        let fetchEvents = Mutex((started: 0, ended: 0))
        var transport: (any ImageTransport & AnyObject)? = kind.make()
        weak let releasedTransport = transport
        var pipeline: ImagePipeline? = ImagePipeline(configuration: .init(
            dependencies: .init(transport: transport!, memoryCache: nil,
                                diskCache: try DiskCache(directory: cacheDirectory, configuration: .init(sizeLimit: 2 << 20))),
            network: .init(retryPolicy: RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(2), maxDelay: .milliseconds(20)),
                           idleTimeout: .seconds(1), maxResponseSize: maxResponseSize, temporaryDirectory: downloads),
            limits: .init(maxConcurrentFetches: 12),
            diagnostics: .init(eventHandler: { event in
                switch event.kind {
                case .fetchStart: fetchEvents.withLock { $0.started += 1 }
                case .fetchEnd: fetchEvents.withLock { $0.ended += 1 }
                default: break
                }
            })))

        var random = SeededGenerator(seed: seed)
        let plan = (0..<loads).map { index in
            SoakLoad(index: index, fault: SoakFault.pick(using: &random),
                     path: "/\(name)/\(index).jpg", strategy: index % 2 == 0 ? .data : .file)
        }
        for load in plan {
            server.setRoute(load.path, load.fault.route(image: image, oversized: oversized, gate: load.gate))
        }
        let outcomes = try await SoakRunner.run(plan, pipeline: pipeline!, server: server, window: 24)

        // Exactly one outcome per load, and the one its fault calls for.
        XCTAssertEqual(outcomes.count, loads)
        var tally: [String: Int] = [:]
        for load in plan {
            guard let outcome = outcomes[load.index] else { XCTFail("load \(load.index) has no outcome"); continue }
            tally["\(load.fault.rawValue) -> \(Self.describe(outcome))", default: 0] += 1
            XCTAssertTrue(load.fault.accepts(outcome, maxResponseSize: maxResponseSize),
                          "\(name) load \(load.index) (\(load.fault)): \(Self.describe(outcome))\(Self.detail(outcome))")
            if case .success(let response) = outcome { XCTAssertEqual(response.pixels, reference, "load \(load.index)") }
            if let expected = load.fault.expectedRequests(retries: 2) {
                XCTAssertTrue(expected.contains(server.counters.requests(for: load.path)),
                              "\(load.fault) made \(server.counters.requests(for: load.path)) requests")
            }
        }
        // Oversized bodies are cut off, not read to the end.
        var largestOversizedSent = 0
        for load in plan where load.fault == .oversizedWithLength || load.fault == .oversizedChunked {
            let sent = server.counters.bodyBytesSent(for: load.path)
            largestOversizedSent = max(largestOversizedSent, sent)
            XCTAssertLessThan(sent, oversized.count / 2, "load \(load.index): the oversized body was read on")
        }

        // Nothing in flight: coalescing pools, stage limiters, fetch events paired.
        do {
            let live = pipeline!   // scoped: the release below must be the last reference
            try await eventually("work in flight") {
                live.decodes.inFlightCount == 0 && live.fetches.inFlightCount == 0
                    && live.fetchStage.admission.runningCount == 0 && live.fetchStage.admission.arrivals.onTheWayCount == 0
                    && live.fetchStage.admission.waitingCount == 0 && live.decodeStage.limiter.runningCount == 0
                    && fetchEvents.withLock { $0.started == $0.ended }
            }
        }
        pipeline = nil
        // Released, a URLSession is invalidated, which closes the idle connections; an
        // AsyncHTTPClient transport is shut down first, as its owner should.
        if let owned = transport as? AsyncHTTPClientTransport { try await owned.shutdown() }
        transport = nil
        // The last load's task may still be returning: released once it has.
        try await eventually("the transport alive after the pipeline was released") { releasedTransport == nil }
        try await server.counters.waitUntil(timeout: .seconds(20)) { $0.connectionsOpened == $0.connectionsClosed }
        let connections = server.counters.connectionsOpened
        try await server.shutdown()

        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), [], "download temporaries left")
        let cacheFiles = try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path)
        // Only the partials (and their records) that downloads broken mid-body keep for the
        // next load by design; they are swept after the cache's grace period. Nothing else.
        let keptPartials = Set(plan.filter { $0.strategy == .file && SoakFault.leavingResumablePartials.contains($0.fault) }
            .flatMap { load -> [String] in
                let key = ImageRequest(source: .url(server.url(for: load.path))).source.identity
                let partial = DiskCacheNaming.partialDownloadPrefix + DiskCacheNaming.hash(forKey: key)
                return [partial, partial + DiskCacheNaming.partialRecordSuffix]
            })
        XCTAssertEqual(Set(cacheFiles.filter { $0.hasPrefix(".tmp-") }), keptPartials, "cache temporaries left")
        let fetches = fetchEvents.withLock { $0.started }
        return "\(name): \(loads) loads, \(fetches) fetches, \(connections) connections opened and closed, "
            + "largest oversized body sent \(largestOversizedSent) of \(oversized.count) bytes; outcomes \(tally.sorted { $0.key < $1.key })"
    }

    /// Polls `condition` until it holds; the deadline is only a failure timeout.
    private func eventually(_ what: String, timeout: Duration = .seconds(20),
                            _ condition: @escaping @Sendable () -> Bool) async throws {
        if await !waitUntil(timeout: timeout, condition) { XCTFail("still \(what) after \(timeout)") }
    }

    /// A decode failure's own words (which format, which file), for a failure message.
    static func detail(_ outcome: Result<ImageResponse, ImageLoadingError>) -> String {
        if case .failure(.decoding(let error)) = outcome { return ": \(error.description)" }
        return ""
    }

    static func describe(_ outcome: Result<ImageResponse, ImageLoadingError>) -> String {
        switch outcome {
        case .success(let response): "success(\(response.origin))"
        case .failure(.fetch(.transport)): "transport"
        case .failure(.fetch(.truncated)): "truncated"
        case .failure(let error): "\(error)"
        }
    }
}
