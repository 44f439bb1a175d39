import Foundation
import ImagoTestServer

extension ConformanceCheck {
    /// SHARE-5 with one network slot: queued work must be admitted by the live maximum of its
    /// subscribers' priorities: raised, lowered, and after the high-priority subscriber left.
    static let priorityCheck = ConformanceCheck(
        "SHARE-5", "Shared work runs at the highest live priority of its subscribers.", requires: .priorities
    ) { run in
        run.context.maxConcurrentFetches = 1
        let loader = try run.loader()
        guard await loader.queuedFetchCount != nil else {
            throw CheckFailed(reason: "declares .priorities but reports no queuedFetchCount: return the number of loads waiting for a network slot, or do not declare .priorities")
        }
        let hold = Gate()
        let holding = run.model(loader, run.route("hold.png", run.images.small, faults: Faults(gate: hold)))
        holding.0.load()
        try await hold.waitUntilHeld()
        var everyone = [holding]
        @MainActor func queue(_ name: String, _ image: ConformanceImage, priority: Int, expectQueued: Int) async throws -> any ModelUnderTest {
            let entry = run.model(loader, run.route(name, image))
            entry.0.setPriority(priority)
            entry.0.load()
            everyone.append(entry)
            var queuedNow: Int?
            let queued = await waitUntil(asking: {
                queuedNow = await loader.queuedFetchCount
                return queuedNow == expectQueued
            })
            try run.expect(queued, "\(name) never queued (queued \(queuedNow ?? -1), expected \(expectQueued)): honour LoaderContext.maxConcurrentFetches (1 here) and count the waiting loads in queuedFetchCount")
            return entry.0
        }
        let raised = try await queue("raised.png", run.images.tiny1, priority: 0, expectQueued: 1)
        _ = try await queue("normal-1.png", run.images.tiny2, priority: 2, expectQueued: 2)
        raised.setPriority(4)
        let lowered = try await queue("lowered.png", run.images.other, priority: 4, expectQueued: 3)
        _ = try await queue("normal-2.png", run.images.large, priority: 2, expectQueued: 4)
        lowered.setPriority(0)
        let leaver = try await queue("left.png", run.images.big, priority: 4, expectQueued: 5)
        let stayer = run.model(loader, run.route("left.png", run.images.big))
        stayer.0.setPriority(0)
        stayer.0.load()
        everyone.append(stayer)
        _ = try await queue("normal-3.png", try run.images.series(0), priority: 2, expectQueued: 6)
        leaver.cancel()
        hold.open()
        for (model, recorder) in everyone where model !== leaver {
            try await run.expectTerminal(recorder, "queued load")
        }
        let order = run.server.counters.requestOrder.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        run.note("request order \(order)")
        func before(_ first: String, _ second: String) -> Bool {
            guard let a = order.firstIndex(of: first), let b = order.firstIndex(of: second) else { return false }
            return a < b
        }
        try run.expect(before("raised.png", "normal-1.png"), "a raised priority did not count: setPriority(_:) on a waiting load must move its work up the queue")
        try run.expect(before("normal-2.png", "lowered.png"), "a lowered priority did not count: setPriority(_:) on a waiting load must move its work down the queue")
        try run.expect(before("normal-3.png", "left.png"), "the departed subscriber's priority still counted: recompute shared work's priority from its live subscribers when one cancels")
    }
}
