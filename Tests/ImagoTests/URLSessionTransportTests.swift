import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImagoTestServer
import Synchronization
import XCTest
@testable import Imago

/// The URLSession transport against the loopback server, for both strategies.
final class URLSessionTransportTests: XCTestCase {
    private var server: TestServer!
    private let transport = URLSessionTransport()
    private let body: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    private var downloads: URL!

    override func setUp() async throws {
        server = try await TestServer.start()
        downloads = FileManager.default.temporaryDirectory.appendingPathComponent("imago-transport-\(UUID())")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try await server.shutdown()
        try? FileManager.default.removeItem(at: downloads)
    }

    private func request(_ path: String, _ strategy: FetchStrategy, headers: [String: String] = [:],
                         idleTimeout: Double = 10, maxSize: Int = 256 << 20) -> FetchRequest {
        FetchRequest(url: server.url(for: path), headers: headers, strategy: strategy, idleTimeout: idleTimeout,
                     maxResponseSize: maxSize, temporaryDirectory: downloads)
    }

    private func leftovers() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: downloads.path) }

    private func bytes(_ result: FetchResult) throws -> [UInt8] {
        switch result.body {
        case .data(let data): return [UInt8](data)
        case .file(let url):
            defer { try? FileManager.default.removeItem(at: url) }
            return [UInt8](try Data(contentsOf: url))
        case .notModified: XCTFail("unexpected 304"); return []
        }
    }

    private func expectFailure(_ request: FetchRequest, _ expected: (FetchError) -> Bool,
                               file: StaticString = #filePath, line: UInt = #line) async {
        do {
            _ = try await transport.fetch(request) { _ in }
            XCTFail("fetch succeeded", file: file, line: line)
        } catch {
            XCTAssertTrue(expected(error), "got \(error)", file: file, line: line)
        }
    }

    func testBothStrategiesDeliverTheBodyWithMonotoneProgress() async throws {
        server.setRoute("/a.bin", Route(body: body))
        for strategy in FetchStrategy.allCases {
            let seen = Mutex<[FetchProgress]>([])
            let result = try await transport.fetch(request("/a.bin", strategy)) { p in seen.withLock { $0.append(p) } }
            if strategy == .downloadToFile, case .data = result.body { XCTFail("expected a file") }
            XCTAssertEqual(try bytes(result), body, "\(strategy)")
            let progress = seen.withLock { $0 }
            XCTAssertEqual(progress.last?.received, body.count)
            XCTAssertEqual(zip(progress, progress.dropFirst()).filter { $0.received > $1.received }.count, 0)
            XCTAssertTrue(progress.allSatisfy { $0.expected == body.count && ($0.fraction ?? 2) <= 1 })
            XCTAssertEqual(result.head.etag?.isEmpty, false)
        }
        XCTAssertEqual(try leftovers(), [])
    }

    func testUnknownLengthIsReportedAsUnknown() async throws {
        server.setRoute("/chunked", Route(body: body, faults: Faults(chunked: true)))
        let seen = Mutex<[FetchProgress]>([])
        let result = try await transport.fetch(request("/chunked", .inMemory)) { p in seen.withLock { $0.append(p) } }
        XCTAssertEqual(try bytes(result), body)
        XCTAssertTrue(seen.withLock { $0 }.allSatisfy { $0.expected == nil && $0.fraction == nil })
    }

    func testNonSuccessStatusFailsAtTheHead() async throws {
        for strategy in FetchStrategy.allCases {
            await expectFailure(request("/missing.jpg", strategy)) { $0 == .httpStatus(404) }
            server.setRoute("/busy", Route(body: body, faults: Faults(status: 503)))
            await expectFailure(request("/busy", strategy)) { $0 == .httpStatus(503) && $0.isTransient }
        }
        XCTAssertEqual(try leftovers(), [], "no temp file for a rejected body")
    }

    func testShortBodyIsATruncationNeverASuccess() async throws {
        server.setRoute("/short", Route(body: body, faults: Faults(closeAfterBytes: 100_000)))
        for strategy in FetchStrategy.allCases {
            await expectFailure(request("/short", strategy)) { error in
                if case .truncated(expected: 300_000, received: let got) = error { return got < 300_000 }
                return false
            }
        }
        XCTAssertEqual(try leftovers(), [], "the partial download is deleted")
    }

    func testConditionalRequestGets304() async throws {
        server.setRoute("/etag", Route(body: body))
        let first = try await transport.fetch(request("/etag", .inMemory)) { _ in }
        let etag = try XCTUnwrap(first.head.etag)
        let second = try await transport.fetch(request("/etag", .inMemory, headers: ["If-None-Match": etag])) { _ in }
        guard case .notModified = second.body else { return XCTFail("expected 304, got \(second.body)") }
    }

    func testOversizeBodyFailsEarly() async throws {
        server.setRoute("/big", Route(body: body))
        await expectFailure(request("/big", .inMemory, maxSize: 1000)) { $0 == .tooLarge(limit: 1000) }
        server.setRoute("/big-chunked", Route(body: body, faults: Faults(chunked: true)))
        await expectFailure(request("/big-chunked", .downloadToFile, maxSize: 1000)) { $0 == .tooLarge(limit: 1000) }
        XCTAssertEqual(try leftovers(), [])
    }

    /// Regression: corelibs' URLSession ignored the `.cancel` disposition, so a body refused at
    /// the head was still read to the end on a connection left open. The body is paced (2 s
    /// in all) so reading it on would be unmistakable.
    func testABodyRefusedAtTheHeadIsNotReadOn() async throws {
        let large = [UInt8](repeating: 7, count: 8 << 20)
        for strategy in FetchStrategy.allCases {
            let path = "/refused-\(strategy.rawValue)"
            server.setRoute(path, Route(body: large, faults: Faults(bytesPerSecond: 4 << 20)))
            let closedBefore = server.counters.connectionsClosedByClient
            await expectFailure(request(path, strategy, maxSize: 1000)) { $0 == .tooLarge(limit: 1000) }
            try await server.counters.waitUntil { $0.connectionsClosedByClient > closedBefore }
            XCTAssertLessThan(server.counters.bodyBytesSent(for: path), large.count / 2, "\(strategy)")
        }
        XCTAssertEqual(try leftovers(), [])
    }

    /// Regression: a head arriving after the caller cancelled created the download file after
    /// the cancellation had cleaned up, and nothing removed it.
    func testAHeadAfterCancellationLeavesNoDownloadFile() throws {
        let operation = FetchOperation(request: request("/late-head", .downloadToFile), progress: { _ in }, cancelTask: {})
        operation.cancel()
        let head = try XCTUnwrap(HTTPURLResponse(url: server.url(for: "/late-head"), statusCode: 200,
                                                 httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "10"]))
        XCTAssertFalse(operation.receive(head: head))
        XCTAssertEqual(try leftovers(), [])
    }

    func testStallBeyondTheIdleTimeoutTimesOut() async throws {
        server.setRoute("/stall", Route(body: body, faults: Faults(stallAfterBytes: 1000)))
        await expectFailure(request("/stall", .downloadToFile, idleTimeout: 0.2)) { $0 == .timedOut }
    }

    func testCancelMidBodyEndsPromptlyClosesTheConnectionAndLeavesNoFile() async throws {
        for strategy in FetchStrategy.allCases {
            let path = "/stalled-\(strategy.rawValue)"
            server.setRoute(path, Route(body: body, faults: Faults(stallAfterBytes: 50_000)))
            let closedBefore = server.counters.snapshot.connectionsClosedByClient
            let received = Mutex(0)
            let transport = self.transport, fetchRequest = request(path, strategy)
            let task = Task { try await transport.fetch(fetchRequest) { p in received.withLock { $0 = p.received } } }
            try await server.counters.waitUntil { $0.bodyBytesSent(for: path) >= 50_000 }
            while received.withLock({ $0 }) == 0 { await Task.yield() }   // bytes reached the client
            task.cancel()
            let result = await task.result
            XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? FetchError, .cancelled) }
            try await server.counters.waitUntil { $0.connectionsClosedByClient > closedBefore }
            XCTAssertEqual(try leftovers(), [], "\(strategy): temp file removed")
        }
    }
}
