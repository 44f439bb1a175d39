import Foundation
import Imago
import ImagoTestServer

/// Issue 25: a product grid's thumbnails from nginx over TLS across a link with latency (the
/// delay proxy), loaded as a screen would: all at once, the first screenful at high priority.
/// Per round-trip time, fetch strategy and protocol: time to the first screenful and to all,
/// the requests nginx served and the connections the proxy accepted, and how many of the rest
/// finished before the screenful did. Then a cold start: the first image over a new TLS
/// connection, against curl's time on the same URL through the same proxy.
public struct FeedScenario: BenchScenario {
    public let name = "feed"
    public let question = "A grid of 100 thumbnails (10–60 KB JPEG/WebP) from nginx over TLS at 20–100 ms RTT, loaded all at once with the first 12 at high priority: how soon are the first 12 and all 100 there, with how many requests and connections, per protocol and strategy; and how long does the first image take cold, against curl?"

    public init() {}

    /// What a run covers; ``plan(quick:)`` is the bench's, tests make smaller ones.
    struct Plan: Sendable {
        /// Round-trip times the proxy adds, in milliseconds.
        var roundTripTimes: [Int]
        var strategies: [FetchStrategy]
        var protocols: [FeedProtocol] = FeedProtocol.allCases
        /// Screen loads per cell (each a fresh transport and pipeline); rows report the median.
        var samples: Int
        /// Thumbnails in the grid, and how many of the first are on screen (high priority).
        var images = 100, screenful = FeedScreenLoad.screenful
        /// The round-trip time of the cold start.
        var coldStartRoundTripTime = 50
    }

    /// 20, 50 and 100 ms × every strategy × 5 samples (quick: 50 ms, `.data`, 3 samples).
    static func plan(quick: Bool) -> Plan {
        quick ? Plan(roundTripTimes: [50], strategies: [.data], samples: 3)
              : Plan(roundTripTimes: [20, 50, 100], strategies: FetchStrategy.allCases, samples: 5)
    }

    public func plannedUnits(quick: Bool) -> Int {
        let plan = Self.plan(quick: quick)
        return (plan.roundTripTimes.count * plan.strategies.count + 1) * plan.protocols.count * plan.samples
    }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let plan = Self.plan(quick: context.quick)
        let thumbnails = try FeedThumbnails.prepare(count: plan.images, directory: context.inputsDirectory) {
            context.progress.log($0)
        }
        return try await Self.run(plan, thumbnails: thumbnails, progress: context.progress)
    }

    /// Runs `plan` against `thumbnails`: skipped rows with the reason where nginx or openssl
    /// cannot run here.
    static func run(_ plan: Plan, thumbnails: [FeedThumbnails.Thumbnail], progress: ProgressReporter) async throws -> [BenchResult] {
        let origin: FeedOrigin
        do {
            origin = try await FeedOrigin.start(thumbnails)
        } catch {
            progress.log("feed: skipped: \(error)")
            return FeedRows.skippedEverywhere(plan, reason: "\(error)")
        }
        do {
            var results: [BenchResult] = []
            for rtt in plan.roundTripTimes {
                results += try await screenLoads(plan, rtt: rtt, origin, thumbnails, progress)
            }
            results += try await coldStarts(plan, origin, first: thumbnails[0], progress)
            await origin.stop()
            return results
        } catch {
            await origin.stop()
            throw error
        }
    }

    /// Every strategy and protocol at one round-trip time, sample by sample in turn (so drift
    /// hits every cell alike), through one delay proxy.
    static func screenLoads(_ plan: Plan, rtt: Int, _ origin: FeedOrigin, _ thumbnails: [FeedThumbnails.Thumbnail],
                            _ progress: ProgressReporter) async throws -> [BenchResult] {
        let proxy = try await origin.proxy(roundTripTime: .milliseconds(rtt))
        var cells: [FeedCell: Result<[FeedCellSample], any Error>] = [:]
        for sample in 0..<plan.samples {
            for strategy in plan.strategies {
                for version in plan.protocols {
                    let cell = FeedCell(rtt: rtt, strategy: strategy, version: version)
                    let outcome = await attempt {
                        try await measure(cell, sample: sample, plan, origin, proxy, thumbnails)
                    }
                    cells[cell] = (cells[cell] ?? .success([])).flatMap { done in outcome.map { done + [$0] } }
                    progress.advance()
                }
            }
        }
        try await proxy.stop()
        progress.log("feed at \(rtt) ms done")
        return plan.strategies.flatMap { strategy in
            plan.protocols.flatMap { version in
                let cell = FeedCell(rtt: rtt, strategy: strategy, version: version)
                return FeedRows.screenRows(cell, plan, cells[cell] ?? .success([]))
            }
        }
    }

    /// One screen load of `cell` over a transport made for it: the pipeline's timings, nginx's
    /// request count and the proxy's new connections.
    static func measure(_ cell: FeedCell, sample: Int, _ plan: Plan, _ origin: FeedOrigin, _ proxy: DelayProxy,
                        _ thumbnails: [FeedThumbnails.Thumbnail]) async throws -> FeedCellSample {
        var configuration = AsyncHTTPClientTransport.Configuration(trustRoots: origin.trustRoots)
        cell.version.configure(&configuration)
        let tag = "\(cell.label)-\(sample)"
        let urls = thumbnails.map { FeedOrigin.url(proxy, $0.name, tag: tag) }
        let connectionsBefore = proxy.counters.connectionsAccepted
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        let outcome = await attempt {
            try await FeedScreenLoad.run(urls, strategy: cell.strategy, transport: transport, downloads: origin.downloads,
                                         screenful: plan.screenful)
        }
        try await transport.shutdown()
        let screen = try outcome.get()
        return FeedCellSample(screen: screen, requests: await origin.loggedRequests(tag: tag, atLeast: screen.fetches),
                              connections: proxy.counters.connectionsAccepted - connectionsBefore)
    }

    /// Imago's and curl's first image over a new connection, per protocol, in alternation.
    static func coldStarts(_ plan: Plan, _ origin: FeedOrigin, first: FeedThumbnails.Thumbnail,
                           _ progress: ProgressReporter) async throws -> [BenchResult] {
        let rtt = plan.coldStartRoundTripTime
        let proxy = try await origin.proxy(roundTripTime: .milliseconds(rtt))
        var results: [BenchResult] = []
        for version in plan.protocols {
            var imago: Result<[Double], any Error> = .success([])
            var curl: Result<[Double], any Error> = .success([])
            var configuration = AsyncHTTPClientTransport.Configuration(trustRoots: origin.trustRoots)
            version.configure(&configuration)
            for sample in 0..<plan.samples {
                let url = FeedOrigin.url(proxy, first.name, tag: "cold-\(version.rawValue)-\(sample)")
                let load = await attempt { try await FeedColdStart.imagoMilliseconds(url, configuration: configuration) }
                imago = imago.flatMap { done in load.map { done + [$0] } }
                let transfer = Result { try FeedColdStart.curlMilliseconds(url, authorityFile: origin.authorityFile, version: version) }
                curl = curl.flatMap { done in transfer.map { done + [$0] } }
                progress.advance()
            }
            results += FeedRows.coldRows(rtt: rtt, version: version, imago: imago, curl: curl)
        }
        try await proxy.stop()
        return results
    }
}

/// `body`'s value or its error, for a sampler that keeps going and reports a cell's failure
/// in its rows.
func attempt<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

/// One cell of the feed's grid of measurements.
struct FeedCell: Hashable, Sendable {
    let rtt: Int
    let strategy: FetchStrategy
    let version: FeedProtocol

    /// `50ms-data-http1.1`: unique per cell, URL-safe (the access-log tag of its samples).
    var label: String { "\(rtt)ms-\(strategy.rawValue)-\(version.rawValue)" }
}

/// A screen load with the counts read around it.
struct FeedCellSample: Sendable {
    let screen: FeedSample
    /// Requests nginx logged for the sample's URLs.
    let requests: Int
    /// Connections the delay proxy accepted during the sample.
    let connections: Int
}
