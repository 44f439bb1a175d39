import Foundation
import ImagoTestServer
import XCTest

/// N cold processes through the shared proxy: one origin request, the same pixels everywhere,
/// and afterwards each process answers from its own disk cache.
final class ProxyTierTests: ProxyTierTestCase {
    func testColdProcessesMakeOneOriginRequestThenEachUsesItsOwnDiskCache() async throws {
        try await startProxy()
        let path = "/tier/cold.png"
        let gate = Gate()
        origin.setRoute(path, Route(body: Self.image, contentType: "image/png",
                                    faults: Faults(gate: gate, headers: ["Cache-Control": "max-age=60"])))
        let cold = try await round(path, "cold") {
            // The origin holds its answer until every process is inside nginx: with the cache
            // lock the others wait on it, without it they would all be at the origin by now.
            try await gate.waitUntilHeld(count: 1, timeout: .seconds(30))
            try await waitUntil("\(Self.processCount) requests in the proxy") {
                try proxy.requestsInProgress(statusPath: Self.statusPath) >= Self.processCount
            }
            gate.open()
        }
        XCTAssertEqual(origin.counters.requests(for: path), 1, "N cold processes, one origin request")
        XCTAssertEqual(cold.outcomes.map { $0.success?["origin"] as? String }, Array(repeating: "network", count: Self.processCount))
        XCTAssertEqual(cold.outcomes.map { $0.success?["diskCache"] as? String }, Array(repeating: "stored", count: Self.processCount))
        for index in 0..<Self.processCount {
            // So the no-store test's empty directories mean something: a stored image is found.
            XCTAssertEqual(LoadProcess.cachedPayloads(in: scratch, index: index).count, 1, "process \(index)")
        }
        let coldLog = try await proxyLog(path, count: Self.processCount)
        XCTAssertEqual(coldLog.map(\.status), Array(repeating: 200, count: Self.processCount))
        XCTAssertEqual(coldLog.compactMap(\.cacheStatus).sorted(),
                       (["MISS"] + Array(repeating: "HIT", count: Self.processCount - 1)).sorted(), "\(coldLog)")

        // max-age=60: each process answers from its own disk cache, asking nobody.
        let warm = try await round(path, "warm")
        XCTAssertEqual(warm.pixels, cold.pixels)
        XCTAssertEqual(warm.outcomes.map { $0.success?["origin"] as? String }, Array(repeating: "disk", count: Self.processCount))
        XCTAssertEqual(warm.outcomes.map { $0.success?["diskCache"] as? String }, Array(repeating: "fresh", count: Self.processCount))
        for outcome in warm.outcomes {
            let counts = outcome.summary?["diskCache"] as? [String: Int]
            XCTAssertEqual(counts?["fresh"], 1, "summary: \(outcome.summary ?? [:])")
            XCTAssertEqual(outcome.summary?["fetches"] as? Int, 0, "a fresh entry is used without a request")
        }
        XCTAssertEqual(proxy.accessLog.filter { $0.path == path }.count, Self.processCount, "no request reached the proxy")
        XCTAssertEqual(origin.counters.requests(for: path), 1)
    }
}
