import Foundation
import Imago
import Synchronization

/// What one screen load measured.
struct FeedSample: Sendable, Equatable {
    /// From submitting the loads until every high-priority one (the first screenful) was done.
    var firstScreenMilliseconds: Double
    /// From submitting the loads until all were done.
    var allMilliseconds: Double
    /// Normal-priority loads done before the last high-priority one: 0 when the screenful
    /// came in first.
    var restBeforeFirstScreen: Int
    /// Normal-priority fetches the pipeline started (handed to the transport) before it started
    /// the last high-priority one: the dispatch order, apart from how the network then ordered
    /// the answers.
    var restStartedBeforeFirstScreen: Int
    /// Fetches the pipeline made (nginx's own count is read beside it).
    var fetches: Int
}

/// One sample of the feed: a fresh pipeline (memory cache on, no disk cache, the default fetch
/// limit and retry policy) over a fresh transport submits every load at once, the first
/// ``screenful`` at `.high` priority and the rest at the default `.normal`, as a grid on screen
/// would.
enum FeedScreenLoad {
    /// The images visible at once, loaded at high priority: 12 (a 3 × 4 grid).
    static let screenful = 12

    /// The thumbnail index in a feed URL's path (`…/feed/007.webp?run=…` → 7), nil for another key.
    static func thumbnailIndex(inSource key: String) -> Int? {
        guard let range = key.range(of: "/feed/") else { return nil }
        return Int(key[range.upperBound...].prefix { $0.isNumber })
    }

    /// Loads `urls` (the first `screenful` of them at high priority) with `strategy` over
    /// `transport`, which the caller made fresh and shuts down. Throws ``BenchError`` naming the
    /// first load that failed.
    static func run(_ urls: [URL], strategy: FetchStrategy, transport: any ImageTransport, downloads: URL,
                    screenful: Int = screenful) async throws -> FeedSample {
        let finished = Completions(), fetchesStarted = Completions()
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(transport: transport, diskCache: nil),
            network: .init(fetchStrategy: strategy, temporaryDirectory: downloads),
            memory: .init(respondsToPressure: false),
            diagnostics: .init(eventHandler: { event in
                // A fetch's key is its source, the URL: `/feed/NNN.ext` names the index.
                if event.kind == .fetchStart, let index = thumbnailIndex(inSource: event.key) {
                    fetchesStarted.record(index, at: event.time)
                }
            })))
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, url) in urls.enumerated() {
                let request = ImageRequest(source: .url(url), priority: index < screenful ? .high : .normal)
                group.addTask {
                    do {
                        _ = try await pipeline.response(for: request)
                    } catch {
                        throw BenchError("feed load of \(url.absoluteString) failed: \(error)")
                    }
                    let now = ContinuousClock.now
                    finished.record(index, at: now)
                }
            }
            try await group.waitForAll()
        }
        let order = finished.inOrder, starts = fetchesStarted.inOrder
        guard let lastHigh = order.lastIndex(where: { $0.index < screenful }), let end = order.last?.at,
              let lastHighStart = starts.lastIndex(where: { $0.index < screenful }) else {
            throw BenchError("feed sample finished no loads, or its fetches were not seen starting")
        }
        func milliseconds(_ instant: ContinuousClock.Instant) -> Double {
            let (seconds, attoseconds) = (instant - start).components
            return Double(seconds) * 1000 + Double(attoseconds) / 1e15
        }
        return FeedSample(
            firstScreenMilliseconds: milliseconds(order[lastHigh].at),
            allMilliseconds: milliseconds(end),
            restBeforeFirstScreen: order[..<lastHigh].filter { $0.index >= screenful }.count,
            restStartedBeforeFirstScreen: starts[..<lastHighStart].filter { $0.index >= screenful }.count,
            fetches: pipeline.counters.snapshot.fetches)
    }
}

/// When each load (or fetch) of a sample finished (or started), recorded from the loads' tasks.
private final class Completions: Sendable {
    private let state = Mutex<[(index: Int, at: ContinuousClock.Instant)]>([])

    func record(_ index: Int, at instant: ContinuousClock.Instant) {
        state.withLock { $0.append((index, instant)) }
    }

    /// Every completion so far, earliest first.
    var inOrder: [(index: Int, at: ContinuousClock.Instant)] {
        state.withLock { $0 }.sorted { $0.at < $1.at }
    }
}
