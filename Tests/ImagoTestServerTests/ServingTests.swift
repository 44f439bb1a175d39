import Foundation
import ImagoTestServer
import ImagoTestSupport
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Directory serving, in-memory routes, methods and connections: the honest server.
final class ServingTests: XCTestCase {
    func testServesFilesUnderRootAnd404sEverythingElse() async throws {
        let root = try TemporaryDirectory.make("imago-test-server")
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent().appendingPathComponent("outside-\(root.lastPathComponent)")) }
        defer { try? FileManager.default.removeItem(at: root) }
        let bytes = patternBytes(100_000)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("img"), withIntermediateDirectories: true)
        try Data(bytes).write(to: root.appendingPathComponent("img/a b.jpg"))
        // A file outside the root, reachable only by escaping it.
        let outside = root.deletingLastPathComponent().appendingPathComponent("outside-\(root.lastPathComponent)")
        try Data("secret".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("escape.txt"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("alias.jpg"), withDestinationURL: root.appendingPathComponent("img/a b.jpg"))

        try await TestServer.with(.init(root: root)) { server in
            let session = makeSession()
            let (data, response) = try await session.data(from: server.url(for: "/img/a%20b.jpg"))
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(Array(data), bytes)
            XCTAssertEqual(response.header("Content-Type"), "image/jpeg")
            XCTAssertEqual(response.header("Content-Length"), "100000")
            XCTAssertNotNil(response.header("ETag"))
            XCTAssertNotNil(response.header("Last-Modified"))
            // An origin server with a clock sends Date (RFC 9110 §6.6.1), an IMF-fixdate.
            let date = try XCTUnwrap(response.header("Date"))
            XCTAssertTrue(date.hasSuffix(" GMT") && date.count == 29, date)

            let (_, missing) = try await session.data(from: server.url(for: "/img/nope.jpg"))
            XCTAssertEqual(missing.status, 404)
            let (_, directory) = try await session.data(from: server.url(for: "/img"))
            XCTAssertEqual(directory.status, 404)

            let inside = try await RawConnection.request(port: server.port, "/alias.jpg")
            XCTAssertEqual(inside.status, 200, "a symlink to a file under the root is served")
            XCTAssertEqual(inside.body, bytes)
            let escapes = ["/../\(outside.lastPathComponent)", "/%2e%2e/\(outside.lastPathComponent)",
                           "/img/..%2f..%2f\(outside.lastPathComponent)", "/escape.txt", "/img/../../etc/passwd"]
            for path in escapes {
                let response = try await RawConnection.request(port: server.port, path)
                XCTAssertEqual(response.status, 404, path)
                XCTAssertFalse(response.text.contains("secret"), path)
            }
        }
    }

    func testRoutesAreServedAndReplaceableAtRuntime() async throws {
        try await TestServer.with { server in
            server.setRoute("/a.jpg", Route(body: [1, 2, 3], contentType: "image/jpeg"))
            let session = makeSession()
            let (first, response) = try await session.data(from: server.url(for: "/a.jpg?size=large"))
            XCTAssertEqual(Array(first), [1, 2, 3], "the query is not part of the route's path")
            XCTAssertEqual(response.header("Content-Type"), "image/jpeg")

            server.setRoute("/a.jpg", Route(body: [9, 8, 7, 6, 5]))
            let (second, _) = try await session.data(from: server.url(for: "/a.jpg"))
            XCTAssertEqual(Array(second), [9, 8, 7, 6, 5])

            server.removeRoute("/a.jpg")
            let (_, gone) = try await session.data(from: server.url(for: "/a.jpg"))
            XCTAssertEqual(gone.status, 404)

            try await server.counters.waitUntil {
                $0.requests(for: "/a.jpg") == 3 && $0.responsesCompleted(for: "/a.jpg") == 3
            }
            let counts = server.counters.snapshot
            XCTAssertEqual(counts.totalRequests, 3)
            XCTAssertEqual(counts.bodyBytesSent(for: "/a.jpg"), 3 + 5 + "404 Not Found\n".utf8.count)
        }
    }

    func testHeadHasHeadersOnlyAndOtherMethodsAre405() async throws {
        try await TestServer.with { server in
            server.setRoute("/a.png", Route(body: patternBytes(1234), contentType: "image/png"))
            try await RawConnection.with(port: server.port) { connection in
                let head = try await connection.request("/a.png", method: .HEAD)
                XCTAssertEqual(head.status, 200)
                XCTAssertEqual(head.header("Content-Length"), "1234")
                XCTAssertEqual(head.body, [])
                XCTAssertTrue(head.isComplete)

                let post = try await connection.request("/a.png", method: .POST)
                XCTAssertEqual(post.status, 405)
                XCTAssertEqual(post.header("Allow"), "GET, HEAD")

                let get = try await connection.request("/a.png")
                XCTAssertEqual(get.body.count, 1234, "the connection is still usable")
            }
            try await server.counters.waitUntil { $0.connectionsClosed == 1 }
            XCTAssertEqual(server.counters.connectionsOpened, 1, "keep-alive: three requests, one connection")
            XCTAssertEqual(server.counters.totalRequests, 3)
            XCTAssertEqual(server.counters.connectionsClosedByClient, 0, "closing between responses is no cancel")
        }
    }

    func testPipelinedRequestsAreAnsweredInOrder() async throws {
        try await TestServer.with { server in
            server.setRoute("/one", Route(body: [1], faults: Faults(latencyBeforeHead: .milliseconds(20))))
            server.setRoute("/two words", Route(body: [2, 2]))
            try await RawConnection.with(port: server.port) { connection in
                try await connection.send("/one")
                try await connection.send("/two%20words?q=1")
                let first = try await connection.readResponse()
                let second = try await connection.readResponse()
                XCTAssertEqual(first.body, [1], "the slow first answer still comes first")
                XCTAssertEqual(second.body, [2, 2])
            }
            XCTAssertEqual(server.counters.requests(for: "/two words"), 1, "counters use the decoded path")
        }
    }

    func testShutdownClosesHeldAndStalledConnections() async throws {
        let server = try await TestServer.start()
        let gate = Gate()
        server.setRoute("/held", Route(body: [1], faults: Faults(gate: gate)))
        server.setRoute("/stalled", Route(body: patternBytes(1000), faults: Faults(stallAfterBytes: 10)))
        let held = Task { try await RawConnection.request(port: server.port, "/held") }
        let stalled = Task { try await RawConnection.request(port: server.port, "/stalled") }
        try await gate.waitUntilHeld()
        try await server.counters.waitUntil { $0.bodyBytesSent(for: "/stalled") == 10 }
        try await server.shutdown()
        XCTAssertEqual(gate.heldCount, 0)
        XCTAssertEqual(server.counters.connectionsClosed, 2)
        XCTAssertEqual(server.counters.connectionsClosedByClient, 0, "the server closed them")
        _ = try? await held.value  // no head: an error
        let truncated = try await stalled.value
        XCTAssertFalse(truncated.isComplete)
        XCTAssertEqual(truncated.body.count, 10)
        try await server.shutdown()  // a second call does nothing
    }

    func testLargeFileIsStreamedWhole() async throws {
        let root = try TemporaryDirectory.make("imago-test-server")
        defer { try? FileManager.default.removeItem(at: root) }
        let chunk = patternBytes(1 << 20)
        let handle = try FileHandle(forWritingTo: {
            let url = root.appendingPathComponent("big.webp")
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            return url
        }())
        for index in 0..<16 {
            var piece = chunk
            piece[0] = UInt8(index)
            handle.write(Data(piece))
        }
        try handle.close()

        try await TestServer.with(.init(root: root)) { server in
            let response = try await RawConnection.request(port: server.port, "/big.webp")
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.header("Content-Type"), "image/webp")
            XCTAssertEqual(response.body.count, 16 << 20)
            for index in [0, 7, 15] {
                XCTAssertEqual(response.body[index << 20], UInt8(index))
                XCTAssertEqual(response.body[(index << 20) + 1..<(index + 1) << 20], chunk[1...])
            }
            try await server.counters.waitUntil { $0.bodyBytesSent(for: "/big.webp") == 16 << 20 }
        }
    }

    func testWaitUntilFailsAfterItsTimeoutWhenNothingHappens() async throws {
        try await TestServer.with { server in
            do {
                try await server.counters.waitUntil(timeout: .milliseconds(50)) { $0.totalRequests == 1 }
                XCTFail("nothing was requested")
            } catch TestServerError.timedOut(let message) {
                XCTAssertTrue(message.contains("requests"), message)
            }
        }
    }
}
