import Foundation
import ImagoTestServer
import XCTest

/// The HTTP cache policy end to end through the shared proxy: a stale entry is revalidated at
/// both tiers with conditional requests (nothing re-sent in full), and `no-store` is stored by
/// neither the proxy nor any process.
final class ProxyTierPolicyTests: ProxyTierTestCase {
    /// The `diskCache` value of each process's success line.
    private func diskCacheOutcomes(_ outcomes: [LoadProcess.Outcome]) -> [String] {
        outcomes.map { $0.success?["diskCache"] as? String ?? "missing" }
    }

    func testStaleEntriesAreRevalidatedThroughTheProxyWithConditionalRequests() async throws {
        try await startProxy()
        let path = "/tier/revalidate.png"
        // max-age=1 at both tiers: fresh for the cold round, stale for the next.
        origin.setRoute(path, Route(body: Self.image, contentType: "image/png",
                                    faults: Faults(headers: ["Cache-Control": "max-age=1"])))
        let cold = try await round(path, "cold")
        let coldEnd = Date()
        XCTAssertEqual(diskCacheOutcomes(cold.outcomes), Array(repeating: "stored", count: Self.processCount))
        let before = origin.counters.snapshot
        XCTAssertEqual(before.requests(for: path) - before.conditionalRequests(for: path), 1,
                       "one full origin response for the cold round: \(before)")

        // Staleness needs time to pass: nginx counts whole seconds, so an entry stored in second
        // S with max-age=1 is stale from second S+2 on; no event says so, the clock does.
        let stale = coldEnd.addingTimeInterval(2.2)
        while Date() < stale { try await Task.sleep(for: .milliseconds(50)) }

        let revalidated = try await round(path, "revalidated")
        XCTAssertEqual(revalidated.pixels, cold.pixels)
        XCTAssertEqual(diskCacheOutcomes(revalidated.outcomes), Array(repeating: "revalidated", count: Self.processCount))
        let after = origin.counters.snapshot
        let newRequests = after.requests(for: path) - before.requests(for: path)
        let newConditional = after.conditionalRequests(for: path) - before.conditionalRequests(for: path)
        XCTAssertGreaterThanOrEqual(newConditional, 1, "the proxy revalidated its stale entry with the origin: \(after)")
        XCTAssertEqual(newRequests, newConditional, "every origin request of the round was conditional: \(after)")
        XCTAssertEqual(after.bodyBytesSent(for: path), before.bodyBytesSent(for: path), "the origin sent no body again (304s)")
        let log = try await proxyLog(path, count: 2 * Self.processCount).suffix(Self.processCount)
        XCTAssertEqual(log.map(\.status), Array(repeating: 304, count: Self.processCount),
                       "every process asked the proxy conditionally and kept its own copy: \(log)")
        XCTAssertTrue(log.contains { $0.cacheStatus == "REVALIDATED" }, "\(log)")
    }

    func testTheProxyAnswersTheProcessesRevalidationsWhileItsSharedLifetimeLasts() async throws {
        try await startProxy()
        let path = "/tier/shared-lifetime.png"
        // Stale at once for each process (max-age=0), fresh for an hour at the proxy (s-maxage,
        // which a private cache ignores): revalidations end at nginx.
        origin.setRoute(path, Route(body: Self.image, contentType: "image/png",
                                    faults: Faults(headers: ["Cache-Control": "max-age=0, s-maxage=3600"])))
        let cold = try await round(path, "cold")
        XCTAssertEqual(diskCacheOutcomes(cold.outcomes), Array(repeating: "stored", count: Self.processCount))
        let again = try await round(path, "again")
        XCTAssertEqual(again.pixels, cold.pixels)
        XCTAssertEqual(diskCacheOutcomes(again.outcomes), Array(repeating: "revalidated", count: Self.processCount))
        XCTAssertEqual(origin.counters.requests(for: path), 1, "the origin saw only the first miss: \(origin.counters.snapshot)")
        let log = try await proxyLog(path, count: 2 * Self.processCount).suffix(Self.processCount)
        XCTAssertEqual(log.map(\.status), Array(repeating: 304, count: Self.processCount), "\(log)")
        XCTAssertEqual(log.map(\.cacheStatus), Array(repeating: "HIT", count: Self.processCount), "\(log)")
    }

    func testNoStoreIsStoredNowhere() async throws {
        try await startProxy()
        let path = "/tier/no-store.png"
        origin.setRoute(path, Route(body: Self.image, contentType: "image/png",
                                    faults: Faults(headers: ["Cache-Control": "no-store"])))
        let first = try await round(path, "no-store")
        XCTAssertEqual(origin.counters.requests(for: path), Self.processCount, "the proxy kept nothing: N processes, N origin requests")
        let log = try await proxyLog(path, count: Self.processCount)
        XCTAssertEqual(log.map(\.cacheStatus), Array(repeating: "MISS", count: Self.processCount), "\(log)")
        XCTAssertEqual(diskCacheOutcomes(first.outcomes), Array(repeating: "notStored", count: Self.processCount))
        XCTAssertEqual(first.outcomes.map { ($0.summary?["diskCache"] as? [String: Int])?["notStored"] },
                       Array(repeating: 1, count: Self.processCount), "every summary counts the load as not stored")
        for index in 0..<Self.processCount {
            // Nothing at all beside the lock: no entry, sidecar, download or partial.
            let directory = LoadProcess.cacheDirectory(in: scratch, index: index).path
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != ".lock" }
            XCTAssertEqual(files, [], "process \(index) kept something of a no-store response")
        }
        // And so the next round goes all the way to the origin again.
        let second = try await round(path, "no-store again")
        XCTAssertEqual(second.outcomes.map { $0.success?["origin"] as? String }, Array(repeating: "network", count: Self.processCount))
        XCTAssertEqual(origin.counters.requests(for: path), 2 * Self.processCount)
    }
}
