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
    /// Fetches the pipeline made (nginx's own count is read beside it).
    var fetches: Int
}

/// One sample of the feed: a fresh pipeline (memory cache on, no disk cache, the default fetch
/// limit and retry policy) over a fresh transport submits every load at once, the first ``screenful`` at
/// `.high` priority and the rest at the default `.normal`, as a grid on screen would.
enum FeedScreenLoad {
    /// The images visible at once, loaded at high priority: 12 (a 3 × 4 grid).
    static let screenful = 12

    /// Loads `urls` (the first `screenful` of them at high priority) with `strategy` over
    /// `transport`, which the caller made fresh and shuts down. Throws ``BenchError`` naming the
    /// first load that failed.
    static func run(_ urls: [URL], strategy: FetchStrategy, transport: any ImageTransport, downloads: URL,
                    screenful: Int = screenful) async throws -> FeedSample {
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(transport: transport, diskCache: nil),
            network: .init(fetchStrategy: strategy, temporaryDirectory: downloads),
            memory: .init(respondsToPressure: false)))
        let finished = Completions()
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
        let order = finished.inOrder
        guard let lastHigh = order.lastIndex(where: { $0.index < screenful }), let end = order.last?.at else {
            throw BenchError("feed sample finished no loads")
        }
        func milliseconds(_ instant: ContinuousClock.Instant) -> Double {
            let (seconds, attoseconds) = (instant - start).components
            return Double(seconds) * 1000 + Double(attoseconds) / 1e15
        }
        return FeedSample(
            firstScreenMilliseconds: milliseconds(order[lastHigh].at),
            allMilliseconds: milliseconds(end),
            restBeforeFirstScreen: order[..<lastHigh].filter { $0.index >= screenful }.count,
            fetches: pipeline.counters.snapshot.fetches)
    }
}

/// When each load of a sample finished, recorded from the loads' tasks.
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
