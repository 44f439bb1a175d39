import Foundation
import ImagoTestServer
import ImagoTestSupport
import Synchronization
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Injected faults, each observed from the client side and through the counters; every
/// ordering is established by awaiting the server (counters, gates), never by sleeping.
final class FaultTests: XCTestCase {
    func testStatusFaultAnswersWithAShortTextBody() async throws {
        try await TestServer.with { server in
            server.setRoute("/a.jpg", Route(body: [1, 2, 3], faults: Faults(status: 503)))
            let (data, response) = try await makeSession().data(from: server.url(for: "/a.jpg"))
            XCTAssertEqual(response.status, 503)
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "503 Service Unavailable\n")
            XCTAssertEqual(response.header("Content-Type"), "text/plain; charset=utf-8")
        }
    }

    func testGateHoldsTheHeadUntilOpened() async throws {
        try await TestServer.with { server in
            let gate = Gate()
            server.setRoute("/held.jpg", Route(body: patternBytes(2000), faults: Faults(gate: gate)))
            let finished = Mutex(false)
            let request = Task {
                let result = try await makeSession().data(from: server.url(for: "/held.jpg"))
                finished.withLock { $0 = true }
                return result
            }
            try await gate.waitUntilHeld()
            // The server has the request and is parked before the head: nothing can have completed.
            XCTAssertEqual(server.counters.requests(for: "/held.jpg"), 1)
            XCTAssertEqual(server.counters.responsesCompleted(for: "/held.jpg"), 0)
            XCTAssertEqual(server.counters.bodyBytesSent(for: "/held.jpg"), 0)
            XCTAssertFalse(finished.withLock { $0 })

            gate.open()
            let (data, response) = try await request.value
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(Array(data), patternBytes(2000))
            XCTAssertEqual(gate.heldCount, 0)
            XCTAssertEqual(gate.totalHeld, 1)
        }
    }

    func testStallAfterBytesHoldsTheBodyUntilTheGateOpens() async throws {
        try await TestServer.with { server in
            let gate = Gate()
            let body = patternBytes(50_000)
            server.setRoute("/slow.png", Route(body: body, faults: Faults(stallAfterBytes: 1000, gate: gate)))
            try await RawConnection.with(port: server.port) { connection in
                try await connection.send("/slow.png")
                let head = try await connection.readHead()
                XCTAssertEqual(head.headers.first(name: "Content-Length"), "50000")
                try await gate.waitUntilHeld()
                try await server.counters.waitUntil { $0.bodyBytesSent(for: "/slow.png") == 1000 }
                XCTAssertEqual(server.counters.responsesCompleted(for: "/slow.png"), 0)
                gate.open()
                let (rest, isComplete, _) = await connection.readBody()
                XCTAssertTrue(isComplete)
                XCTAssertEqual(rest, body)
            }
        }
    }

    func testCloseAfterBytesTruncatesTheTransfer() async throws {
        try await TestServer.with { server in
            let body = patternBytes(100_000)
            server.setRoute("/cut.jpg", Route(body: body, faults: Faults(closeAfterBytes: 30_000)))
            let raw = try await RawConnection.request(port: server.port, "/cut.jpg")
            XCTAssertEqual(raw.header("Content-Length"), "100000", "the head promises the whole body")
            XCTAssertFalse(raw.isComplete)
            XCTAssertEqual(raw.body, Array(body[..<30_000]))

            do {
                let (data, _) = try await makeSession().data(from: server.url(for: "/cut.jpg"))
                XCTAssertLessThan(data.count, body.count, "URLSession must not see a whole body")
            } catch {
                // The expected outcome: a transport error for the short body.
            }
            try await server.counters.waitUntil { $0.connectionsClosed == 2 && $0.requests(for: "/cut.jpg") == 2 }
            XCTAssertEqual(server.counters.responsesCompleted(for: "/cut.jpg"), 0)
            XCTAssertEqual(server.counters.connectionsClosedByClient, 0, "the server closed, not the client")
        }
    }

    func testChunkedResponsesHaveNoContentLength() async throws {
        try await TestServer.with { server in
            let body = patternBytes(200_000)
            server.setRoute("/c.webp", Route(body: body, contentType: "image/webp", faults: Faults(chunked: true)))
            let raw = try await RawConnection.request(port: server.port, "/c.webp")
            XCTAssertNil(raw.header("Content-Length"))
            XCTAssertEqual(raw.header("Transfer-Encoding"), "chunked")
            XCTAssertTrue(raw.isComplete)
            XCTAssertEqual(raw.body, body)

            let head = try await RawConnection.request(port: server.port, "/c.webp", method: .HEAD)
            XCTAssertTrue(head.isComplete)
            XCTAssertNil(head.header("Content-Length"))

            let (data, response) = try await makeSession().data(from: server.url(for: "/c.webp"))
            XCTAssertEqual(Array(data), body)
            XCTAssertNil(response.header("Content-Length"))
        }
    }

    func testClientCancelIsCountedAsClosedByClient() async throws {
        try await TestServer.with { server in
            // A raw client that gives up on a body stalled for good.
            server.setRoute("/stalled.jpg", Route(body: patternBytes(10_000), faults: Faults(stallAfterBytes: 100)))
            try await RawConnection.with(port: server.port) { connection in
                try await connection.send("/stalled.jpg")
                _ = try await connection.readHead()
                try await server.counters.waitUntil { $0.bodyBytesSent(for: "/stalled.jpg") == 100 }
            }  // closes the connection mid-body
            try await server.counters.waitUntil { $0.connectionsClosedByClient == 1 }

            // URLSession cancelling a request whose head the gate holds.
            let gate = Gate()
            server.setRoute("/gated.jpg", Route(body: [1, 2, 3], faults: Faults(gate: gate)))
            let session = makeSession()
            let task = session.dataTask(with: server.url(for: "/gated.jpg"))
            task.resume()
            try await gate.waitUntilHeld()
            task.cancel()
            try await server.counters.waitUntil { $0.connectionsClosedByClient == 2 }
            XCTAssertEqual(gate.heldCount, 0, "the cancelled response no longer waits at the gate")
            XCTAssertEqual(server.counters.responsesCompleted(for: "/gated.jpg"), 0)
        }
    }

    func testFailFirstAnswers503ThenServesNormally() async throws {
        try await TestServer.with { server in
            server.setRoute("/retry.jpg", Route(body: [7, 7, 7]).failFirst(2, with: Faults(status: 503)))
            let session = makeSession()
            var statuses: [Int] = []
            for _ in 0..<3 {
                let (_, response) = try await session.data(from: server.url(for: "/retry.jpg"))
                statuses.append(response.status)
            }
            XCTAssertEqual(statuses, [503, 503, 200])
            let (data, _) = try await session.data(from: server.url(for: "/retry.jpg"))
            XCTAssertEqual(Array(data), [7, 7, 7])
            XCTAssertEqual(server.counters.requests(for: "/retry.jpg"), 4)
        }
    }

    func testThrottledRateDeliversAllBytesNoFasterThanTheRate() async throws {
        try await TestServer.with { server in
            let body = patternBytes(48 * 1024)
            let rate = 192 * 1024  // bytes per second: the body takes 250 ms
            server.setRoute("/t.jpg", Route(body: body, faults: Faults(bytesPerSecond: rate)))
            let start = ContinuousClock.now
            let (data, _) = try await makeSession().data(from: server.url(for: "/t.jpg"))
            let elapsed = ContinuousClock.now - start
            XCTAssertEqual(Array(data), body)
            // The pace is computed from the head's departure, so this lower bound is exact.
            XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(240))
            XCTAssertLessThan(elapsed, .seconds(5))
        }
    }

    func testServerWideFaultsApplyToFiles() async throws {
        let root = try TemporaryDirectory.make("imago-test-server")
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(patternBytes(1000)).write(to: root.appendingPathComponent("a.jpg"))
        let faults = Faults(latencyBeforeHead: .milliseconds(150), contentTypeOverride: "text/html")
        try await TestServer.with(.init(root: root, defaultFaults: faults)) { server in
            let start = ContinuousClock.now
            let (data, response) = try await makeSession().data(from: server.url(for: "/a.jpg"))
            XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(150))
            XCTAssertEqual(data.count, 1000)
            XCTAssertEqual(response.header("Content-Type"), "text/html")

            server.setRoute("/honest.jpg", Route(body: [1], contentType: "image/jpeg", faults: Faults.none))
            let (_, honest) = try await makeSession().data(from: server.url(for: "/honest.jpg"))
            XCTAssertEqual(honest.header("Content-Type"), "image/jpeg", "a route's own faults replace the defaults")
        }
    }

    func testGateReleasesEveryHeldResponseAndCanBeShutAgain() async throws {
        let gate = Gate()
        XCTAssertFalse(gate.isOpen)
        try await TestServer.with { server in
            server.setRoute("/g", Route(body: [1], faults: Faults(gate: gate)))
            let requests = (0..<3).map { _ in
                Task { try await RawConnection.request(port: server.port, "/g") }
            }
            try await gate.waitUntilHeld(count: 3)
            gate.open()
            for request in requests {
                let response = try await request.value
                XCTAssertEqual(response.body, [1])
            }
            gate.close()
            let held = Task { try await RawConnection.request(port: server.port, "/g") }
            try await gate.waitUntilHeld()
            XCTAssertEqual(gate.totalHeld, 4)
            gate.open()
            _ = try await held.value
        }
    }
}
