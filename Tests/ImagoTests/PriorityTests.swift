import Foundation
import ImagoConformance
import ImagoTestServer
import Synchronization
import XCTest
@_spi(Testing) @testable import Imago

/// SHARE-5: shared work runs at the highest priority of its live subscribers, recomputed when
/// one leaves or changes its priority; stage queues admit by that live priority.
final class PriorityTests: XCTestCase {
    func testSharedPriorityIsTheLiveMaximumOfItsSubscribers() async throws {
        let pool = TaskPool<String, Int>()
        let started = Gate()
        let finish = Gate()
        let observed = Mutex<SharedWork?>(nil)
        let work: TaskPool<String, Int>.Work = { shared in
            observed.withLock { $0 = shared }
            started.open()
            try? await finish.waitUntilOpen(timeout: .seconds(30))
            return .success(7)
        }
        let low = Mutex(ImageRequestPriority.low)
        let lowSubscriber = Task { await pool.value(for: "k", priority: { low.withLock { $0 } }, work: work) }
        try await started.waitUntilOpen()
        let shared = try XCTUnwrap(observed.withLock { $0 })
        XCTAssertEqual(shared.priority, .low)

        let highSubscriber = Task { await pool.value(for: "k", priority: { .high }, work: work) }
        try await waitFor { shared.priority == .high }
        highSubscriber.cancel()
        let leaverOutcome = await highSubscriber.value
        XCTAssertEqual(leaverOutcome, .failure(.cancelled), "the leaver gets .cancelled")
        XCTAssertEqual(shared.priority, .low, "recomputed when the high subscriber leaves")

        low.withLock { $0 = .veryHigh }
        XCTAssertEqual(shared.priority, .veryHigh, "recomputed when a subscriber raises its priority")
        finish.open()
        let remainingOutcome = await lowSubscriber.value
        XCTAssertEqual(remainingOutcome, .success(7), "the shared work kept running for the rest")
    }

    func testLimiterAdmitsByLivePriorityThenArrivalOrder() async throws {
        let limiter = StageLimiter(limit: 1)
        let release = Gate()
        let order = Mutex<[String]>([])
        let entered = Gate()
        let holder = Task {
            await limiter.run(priority: { .normal }) {
                entered.open()
                try? await release.waitUntilOpen(timeout: .seconds(30))
            }
        }
        try await entered.waitUntilOpen()
        let raised = Mutex(ImageRequestPriority.veryLow)
        var queued: [Task<Void?, Never>] = []
        let lineUp: [(String, @Sendable () -> ImageRequestPriority)] = [
            ("low-1", { .low }), ("low-2", { .low }), ("raised", { raised.withLock { $0 } }), ("high", { .high }),
        ]
        for (name, priority) in lineUp {
            let count = queued.count
            queued.append(Task { @Sendable () async -> Void? in
                await limiter.run(priority: priority) { order.withLock { $0.append(name) } }
            })
            try await waitFor { limiter.waitingCount == count + 1 }
        }
        raised.withLock { $0 = .veryHigh }
        release.open()
        _ = await holder.value
        for task in queued { _ = await task.value }
        XCTAssertEqual(order.withLock { $0 }, ["raised", "high", "low-1", "low-2"])
    }

    func testImageTaskPriorityReordersQueuedFetchesAndACancelledQueuedTaskIsNeverRequested() async throws {
        let server = try await TestServer.start()
        let jpeg = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")
        let hold = Gate()
        server.setRoute("/hold.jpg", Route(body: jpeg, faults: Faults(gate: hold)))
        for path in ["/early.jpg", "/late.jpg", "/dropped.jpg"] { server.setRoute(path, Route(body: jpeg)) }
        let pipeline = ImagePipeline(configuration: .init(limits: .init(maxConcurrentFetches: 1)))
        func request(_ path: String, _ priority: ImageRequestPriority) -> ImageRequest {
            ImageRequest(source: .url(server.url(for: path)), priority: priority)
        }
        let holding = pipeline.imageTask(for: request("/hold.jpg", .normal))
        try await hold.waitUntilHeld()
        let late = pipeline.imageTask(for: request("/late.jpg", .normal))
        try await waitFor { pipeline.fetchStage.admission.waitingCount == 1 }
        let early = pipeline.imageTask(for: request("/early.jpg", .veryLow))
        try await waitFor { pipeline.fetchStage.admission.waitingCount == 2 }
        let dropped = pipeline.imageTask(for: request("/dropped.jpg", .veryHigh))
        try await waitFor { pipeline.fetchStage.admission.waitingCount == 3 }
        early.priority = .veryHigh
        dropped.cancel()
        do {
            _ = try await dropped.response
            XCTFail("a cancelled task succeeded")
        } catch {
            XCTAssertEqual(error, .cancelled)
        }
        hold.open()
        _ = try await holding.response
        let served = try await [early.response, late.response]
        XCTAssertEqual(served.map(\.origin), [.network, .network])
        XCTAssertEqual(server.counters.requests(for: "/dropped.jpg"), 0, "cancelled while queued: never requested")
        let log = server.counters.requestOrder
        XCTAssertLessThan(try XCTUnwrap(log.firstIndex(of: "/early.jpg")), try XCTUnwrap(log.firstIndex(of: "/late.jpg")),
                          "raised past the task queued before it")
        try await server.shutdown()
    }
}

/// Polls `condition` until it holds; the timeout only turns a hang into a failure.
func waitFor(timeout: Duration = .seconds(10), file: StaticString = #filePath, line: UInt = #line,
             _ condition: () -> Bool) async throws {
    guard await waitUntil(timeout: timeout, condition) else {
        XCTFail("condition not met within \(timeout)", file: file, line: line)
        throw CancellationError()
    }
}
