import Foundation
import ImagoConformance
import Synchronization
import Testing
@testable import Imago

/// `FetchAdmission`: connection slots for HTTP/1.1 origins, stream slots for HTTP/2 ones, a
/// stream held back while a higher priority waits for its first byte, and loads announced and on
/// their way waited for. Every verdict is read from the admission's own counts, never a clock.
@Suite struct FetchAdmissionTests {
    /// Fetches asking for slots in the background; records the names admitted, in order.
    final class Line: Sendable {
        let admission: FetchAdmission
        private let admitted = Mutex<[(name: String, slot: FetchSlot)]>([])
        private let tasks = Mutex<[Task<Void, Never>]>([])

        init(connections: Int, streams: Int) {
            admission = FetchAdmission(connectionLimit: connections, streamLimit: streams)
        }

        var names: [String] { admitted.withLock { $0.map(\.name) } }

        /// Queues a fetch and returns once it is admitted or waiting in line.
        func ask(_ name: String, origin: String = "https://a:443", source: String? = nil, mayMultiplex: Bool = false,
                 _ priority: ImageRequestPriority = .normal) async {
            let before = admission.waitingCount + admission.runningCount
            let task = Task {
                guard let slot = await admission.admit(source: source ?? name, origin: origin, mayMultiplex: mayMultiplex,
                                                       priority: { priority }) else { return }
                admitted.withLock { $0.append((name, slot)) }
            }
            tasks.withLock { $0.append(task) }
            _ = await waitUntil { self.admission.waitingCount + self.admission.runningCount == before + 1 }
        }

        func slot(_ name: String) -> FetchSlot? { admitted.withLock { $0.first { $0.name == name }?.slot } }

        /// Waits until `count` fetches were admitted in all.
        func admittedCount(reaches count: Int) async -> Bool { await waitUntil { self.names.count >= count } }

        func finish() async {
            admitted.withLock { $0.forEach { $0.slot.release() } }
            for task in tasks.withLock({ $0 }) { task.cancel() }
        }
    }

    @Test func anOriginThatAnswersOverHTTP2MovesItsWaitersToStreamSlots() async {
        let line = Line(connections: 2, streams: 8)
        for name in ["a", "b", "c", "d"] { await line.ask(name) }
        #expect(await line.admittedCount(reaches: 2))
        #expect(line.admission.waitingCount == 2, "an origin not heard from yet gets connection slots")
        line.admission.learn(origin: "https://a:443", httpVersion: "HTTP/2.0")
        #expect(await line.admittedCount(reaches: 4))
        #expect(line.admission.runningCount(.streams) == 2)
        #expect(line.admission.runningCount(.connections) == 2, "the first two keep the slots they took")
        await line.finish()
    }

    @Test func anOriginThatAnswersOverHTTP1GetsConnectionSlotsAgain() async {
        let line = Line(connections: 1, streams: 8)
        await line.ask("first", mayMultiplex: true)
        await line.ask("second", mayMultiplex: true)
        #expect(await line.admittedCount(reaches: 2), "a transport that may speak HTTP/2 starts on stream slots")
        line.admission.learn(origin: "https://a:443", httpVersion: "HTTP/1.1")
        await line.ask("third", mayMultiplex: true)
        await line.ask("fourth", mayMultiplex: true)
        #expect(await line.admittedCount(reaches: 3))
        #expect(line.admission.waitingCount == 1, "an HTTP/1.1 origin is one fetch per connection slot")
        #expect(line.names == ["first", "second", "third"])
        await line.finish()
    }

    @Test func aStreamOfLowerPriorityWaitsForTheFirstByteOfAHigherOne() async throws {
        let line = Line(connections: 6, streams: 8)
        line.admission.learn(origin: "https://a:443", httpVersion: "HTTP/2.0")
        await line.ask("high", .high)
        #expect(await line.admittedCount(reaches: 1))
        await line.ask("normal", .normal)
        await line.ask("other high", .high)
        #expect(await line.admittedCount(reaches: 2), "equal priority is not held")
        #expect(line.names == ["high", "other high"])
        #expect(line.admission.waitingCount == 1, "held although a stream slot is free")
        try #require(line.slot("high")).firstByte()
        #expect(line.admission.waitingCount == 1, "another high one still waits for its first byte")
        try #require(line.slot("other high")).firstByte()
        #expect(await line.admittedCount(reaches: 3))
        await line.finish()
    }

    @Test func aConnectionSlotIsNotHeldForFirstBytes() async {
        let line = Line(connections: 6, streams: 8)
        await line.ask("high", .high)
        await line.ask("normal", .normal)
        #expect(await line.admittedCount(reaches: 2), "over HTTP/1.1 each fetch has its own connection")
        await line.finish()
    }

    @Test func loadsOnTheirWayAreWaitedForByLowerPriorities() async throws {
        let line = Line(connections: 6, streams: 8)
        let arrivals = line.admission.arrivals
        let screen = arrivals.announce("screen.jpg", priority: { .high })
        let dropped = arrivals.announce("dropped.jpg", priority: { .high })
        _ = arrivals.announce("below.jpg", priority: { .low })
        await line.ask("below.jpg", .low)
        #expect(line.admission.waitingCount == 1, "held while higher priorities are on their way")
        await line.ask("screen.jpg", .high)
        #expect(await line.admittedCount(reaches: 1))
        #expect(line.names == ["screen.jpg"], "the arriving high one goes at once")
        #expect(line.admission.waitingCount == 1, "one high load is still on its way")
        arrivals.leave("dropped.jpg", id: dropped)
        #expect(await line.admittedCount(reaches: 2), "it ended without fetching")
        #expect(line.names == ["screen.jpg", "below.jpg"])
        arrivals.leave("screen.jpg", id: screen)
        #expect(arrivals.onTheWayCount == 0)
        await line.finish()
    }

    @Test func aLoadJoiningAFetchAlreadyAskedForIsNotWaitedFor() async {
        let line = Line(connections: 1, streams: 8)
        let arrivals = line.admission.arrivals
        _ = arrivals.announce("shared.jpg", priority: { .normal })
        await line.ask("shared.jpg")
        _ = arrivals.announce("shared.jpg", priority: { .high })
        #expect(arrivals.onTheWayCount == 0, "its fetch already asked for a slot")
        await line.finish()
    }

    @Test func aCancelledWaiterLeavesTheLine() async throws {
        let line = Line(connections: 1, streams: 1)
        await line.ask("holder")
        #expect(await line.admittedCount(reaches: 1))
        let waiter = Task { await line.admission.admit(source: "w", origin: "https://a:443", mayMultiplex: false, priority: { .high }) }
        #expect(await waitUntil { line.admission.waitingCount == 1 })
        waiter.cancel()
        let slot = await waiter.value
        #expect(slot == nil)
        #expect(line.admission.waitingCount == 0)
        try #require(line.slot("holder")).release()
        #expect(line.admission.runningCount == 0, "a released slot is given back once")
        await line.finish()
        #expect(line.admission.runningCount == 0)
    }

    @Test(arguments: [("HTTP/2.0", true), ("HTTP/3.0", true), ("HTTP/1.1", false), ("HTTP/1.0", false), ("h2", false)])
    func whichVersionsMultiplex(version: String, multiplexes: Bool) {
        #expect(FetchAdmission.isMultiplexed(version) == multiplexes)
    }

    @Test func anOriginIsSchemeHostAndPort() throws {
        let url = try #require(URL(string: "HTTPS://CDN.example:8443/a.jpg?x=1"))
        #expect(FetchAdmission.origin(of: url) == "https://cdn.example:8443")
        #expect(FetchAdmission.origin(of: try #require(URL(string: "http://cdn.example/a.jpg"))) == "http://cdn.example:80")
        #expect(FetchAdmission.origin(of: try #require(URL(string: "https://cdn.example/a.jpg"))) == "https://cdn.example:443")
    }
}
