import Foundation
import ImagoConformance
import ImagoTestServer
import Synchronization
import Testing
@_spi(Testing) @testable import Imago

/// Loads submitted together start their fetches in priority order, whichever of their tasks runs
/// first: a load on its way to the fetch stage holds back fetches of lower priority
/// (`FetchArrivals`). The high-priority load's way is held open by a gate in its pool, so the
/// normal one is deterministically first at the fetch stage.
@Suite struct FetchOrderTests {
    /// How long a load may take to reach the fetch stage before the test fails: a bound for a
    /// hang, not a timing. Under ThreadSanitizer with the whole suite running beside it, 10 s was
    /// not enough (rehearsal 29; rehearsal 28 took 52 s for this suite, and passed).
    static let reachesTheFetchStage: Duration = .seconds(120)

    /// The pipeline's pools, with the high-priority loads' work held at a gate before it starts.
    struct GatedHighPriorityPools: TaskPoolMaking {
        let gate: Gate

        func makePool<Key: Hashable & Sendable, Value: Sendable>(_ key: Key.Type, _ value: Value.Type) -> any CoalescingPool<Key, Value> {
            GatedPool<Key, Value>(gate: gate)
        }
    }

    final class GatedPool<Key: Hashable & Sendable, Value: Sendable>: CoalescingPool {
        let pool = TaskPool<Key, Value>()
        let gate: Gate

        init(gate: Gate) { self.gate = gate }

        func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
                   onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
                   work: @escaping @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>) async
            -> Result<Value, ImageLoadingError> {
            let gate = self.gate
            return await pool.value(for: key, priority: priority, onProgress: onProgress, onPreview: onPreview) { shared in
                if priority() >= .high { try? await gate.waitUntilOpen(timeout: .seconds(30)) }
                return await work(shared)
            }
        }

        var inFlightCount: Int { pool.inFlightCount }
        func subscriberCount(for key: Key) -> Int { pool.subscriberCount(for: key) }
    }

    @Test func aNormalFetchWaitsForAHighPriorityLoadStillOnItsWay() async throws {
        let server = try await TestServer.start()
        let jpeg = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")
        for path in ["/screen.jpg", "/below.jpg"] { server.setRoute(path, Route(body: jpeg)) }
        let onTheWay = Gate()
        var configuration = ImagePipeline.Configuration()
        configuration.dependencies.taskPools = GatedHighPriorityPools(gate: onTheWay)
        // One slot: the fetch admitted first is the first the server sees (with two, both start
        // at once and the transport's race decides), and a normal fetch let go before the high
        // one is in line takes the slot.
        configuration.limits.maxConcurrentFetches = 1
        let pipeline = ImagePipeline(configuration: configuration)

        let screen = pipeline.imageTask(for: ImageRequest(source: .url(server.url(for: "/screen.jpg")), priority: .high))
        let below = pipeline.imageTask(for: ImageRequest(source: .url(server.url(for: "/below.jpg")), priority: .normal))
        #expect(await waitUntil(timeout: Self.reachesTheFetchStage) { pipeline.queuedFetchCount == 1 },
                "the normal load reached the fetch stage")
        #expect(server.counters.snapshot.totalRequests == 0, "and waits, with the fetch slot free")
        #expect(pipeline.fetchStage.admission.arrivals.onTheWayCount == 1)

        onTheWay.open()
        _ = try await screen.response
        _ = try await below.response
        #expect(server.counters.snapshot.requestOrder == ["/screen.jpg", "/below.jpg"])
        #expect(pipeline.fetchStage.admission.arrivals.onTheWayCount == 0, "nothing is left on its way")
        try await server.shutdown()
    }

    @Test func aHighPriorityLoadThatEndsBeforeFetchingReleasesTheWait() async throws {
        let server = try await TestServer.start()
        server.setRoute("/below.jpg", Route(body: TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")))
        let onTheWay = Gate()
        var configuration = ImagePipeline.Configuration()
        configuration.dependencies.taskPools = GatedHighPriorityPools(gate: onTheWay)
        let pipeline = ImagePipeline(configuration: configuration)

        let screen = pipeline.imageTask(for: ImageRequest(source: .url(server.url(for: "/never.jpg")), priority: .high))
        let below = pipeline.imageTask(for: ImageRequest(source: .url(server.url(for: "/below.jpg")), priority: .normal))
        #expect(await waitUntil(timeout: Self.reachesTheFetchStage) { pipeline.queuedFetchCount == 1 })
        screen.cancel()
        _ = try await below.response
        #expect(server.counters.snapshot.requestOrder == ["/below.jpg"], "the cancelled load never fetched")
        onTheWay.open()
        try await server.shutdown()
    }
}
