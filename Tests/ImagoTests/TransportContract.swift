import Foundation
import ImagoTestServer
import Synchronization
import Testing
@testable import Imago

/// What every `ImageTransport` must do, as check functions against the loopback server, run for
/// every transport in `TestTransports.all` over every protocol it speaks (`ContractRun`) by the
/// parameterised `TransportContractTests` (and by the transport-specific suites for their own
/// checks). Each check records its issues at its own lines.
struct TransportContract {
    let transport: any ImageTransport
    let server: TestServer
    /// Where download-to-file temporaries go; must be empty after every check.
    let downloads: URL
    /// What the server speaks: plain HTTP/1.1, or HTTPS offering HTTP/2.
    let wire: WireProtocol
    /// How `server` was started (TLS or not): a check that needs a server of its own starts it
    /// the same way.
    let serverConfiguration: TestServer.Configuration
    let body: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    /// Starts a server (speaking `wire`, default HTTP/1.1) and a downloads directory for `transport`.
    static func start(_ transport: any ImageTransport, wire: WireProtocol = .http1) async throws -> TransportContract {
        let configuration = try TestServer.Configuration(tls: wire.serverTLS())
        let server = try await TestServer.start(configuration)
        let downloads = FileManager.default.temporaryDirectory.appendingPathComponent("imago-transport-\(UUID())")
        do {
            try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        } catch {
            try? await server.shutdown()
            throw error
        }
        return TransportContract(transport: transport, server: server, downloads: downloads, wire: wire,
                                 serverConfiguration: configuration)
    }

    func stop() async throws {
        try await server.shutdown()
        try? FileManager.default.removeItem(at: downloads)
    }

    /// Runs `check` with a contract (server, downloads directory) for `transport`, and stops
    /// it however `check` ends.
    static func with(_ transport: any ImageTransport, wire: WireProtocol = .http1,
                     _ check: (TransportContract) async throws -> Void) async throws {
        let contract = try await start(transport, wire: wire)
        do {
            try await check(contract)
        } catch {
            try? await contract.stop()
            throw error
        }
        try await contract.stop()
    }

    // MARK: Helpers

    func request(_ path: String, _ strategy: FetchStrategy = .data, headers: [String: String] = [:],
                 idleTimeout: Duration = .seconds(10), maxSize: Int = 256 << 20) -> FetchRequest {
        FetchRequest(url: server.url(for: path), headers: headers, strategy: strategy, idleTimeout: idleTimeout,
                     maxResponseSize: maxSize, temporaryDirectory: downloads)
    }

    func leftovers() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: downloads.path) }

    /// The body's bytes (a file body is read and removed).
    func bytes(_ result: FetchResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        switch result.body {
        case .data(let data): return [UInt8](data)
        case .file(let url):
            defer { try? FileManager.default.removeItem(at: url) }
            return [UInt8](try Data(contentsOf: url))
        case .notModified: Issue.record("unexpected 304", sourceLocation: sourceLocation); return []
        case .streamed: Issue.record("unexpected streamed body", sourceLocation: sourceLocation); return []
        }
    }

    func expectFailure(_ request: FetchRequest, sourceLocation: SourceLocation = #_sourceLocation,
                       _ expected: (FetchError) -> Bool) async {
        do {
            let result = try await transport.fetch(request) { _ in }
            Issue.record("fetch succeeded (\(result.receivedBytes) bytes)", sourceLocation: sourceLocation)
            _ = try? bytes(result)
        } catch {
            #expect(expected(error), "got \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Checks

    func bothStrategiesDeliverTheBodyWithMonotoneProgress() async throws {
        server.setRoute("/a.bin", Route(body: body))
        for strategy in FetchStrategy.storing {
            let seen = Mutex<[FetchProgress]>([])
            let result = try await transport.fetch(request("/a.bin", strategy)) { p in seen.withLock { $0.append(p) } }
            if strategy == .file, case .data = result.body { Issue.record("expected a file") }
            try #expect(bytes(result) == body, "\(strategy)")
            #expect(result.receivedBytes == body.count)
            #expect(result.finalURL == server.url(for: "/a.bin"))
            #expect(result.redirects == 0)
            let progress = seen.withLock { $0 }
            #expect(progress.last?.received == body.count)
            #expect(zip(progress, progress.dropFirst()).filter { $0.received > $1.received }.count == 0)
            #expect(progress.allSatisfy { $0.expected == body.count && ($0.fraction ?? 2) <= 1 })
            #expect(result.head.etag?.isEmpty == false)
        }
        try #expect(leftovers() == [])
    }

    func unknownLengthIsReportedAsUnknown() async throws {
        server.setRoute("/chunked", Route(body: body, faults: Faults(chunked: true)))
        let seen = Mutex<[FetchProgress]>([])
        let result = try await transport.fetch(request("/chunked")) { p in seen.withLock { $0.append(p) } }
        try #expect(bytes(result) == body)
        #expect(!seen.withLock { $0 }.isEmpty)
        #expect(seen.withLock { $0 }.allSatisfy { $0.expected == nil && $0.fraction == nil })
    }

    func nonSuccessStatusFailsAtTheHead() async throws {
        server.setRoute("/busy", Route(body: body, faults: Faults(status: 503, headers: ["Retry-After": "7"])))
        server.setRoute("/gone", Route(body: body, faults: Faults(status: 404, headers: ["Retry-After": "7"])))
        for strategy in FetchStrategy.storing {
            await expectFailure(request("/missing.jpg", strategy)) { $0.withoutHead == .httpStatus(404) }
            await expectFailure(request("/busy", strategy)) {
                $0.withoutHead == .httpStatus(503, retryAfter: .seconds(7)) && $0.isTransient
            }
            // Retry-After only counts with a status worth retrying; the failing head comes with
            // the error, for the disk cache to judge (negative caching).
            await expectFailure(request("/gone", strategy)) { error in
                guard case .httpStatus(404, nil, let head?) = error else { return false }
                return head.statusCode == 404 && head.headers["retry-after"] == "7"
            }
        }
        try #expect(leftovers() == [], "no temp file for a rejected body")
    }

    func shortBodyIsATruncationNeverASuccess() async throws {
        server.setRoute("/short", Route(body: body, faults: Faults(closeAfterBytes: 100_000)))
        for strategy in FetchStrategy.storing {
            await expectFailure(request("/short", strategy)) { error in
                if case .truncated(expected: 300_000, received: let got) = error { return got < 300_000 }
                return false
            }
        }
        try #expect(leftovers() == [], "the partial download is deleted")
    }

    func conditionalRequestGets304() async throws {
        server.setRoute("/etag", Route(body: body))
        let first = try await transport.fetch(request("/etag")) { _ in }
        let etag = try #require(first.head.etag)
        let second = try await transport.fetch(request("/etag", headers: ["If-None-Match": etag])) { _ in }
        guard case .notModified = second.body else { Issue.record("expected 304, got \(second.body)"); return }
        #expect(second.head.statusCode == 304)
    }

    func oversizeBodyFailsEarly() async throws {
        server.setRoute("/big", Route(body: body))
        await expectFailure(request("/big", maxSize: 1000)) { $0 == .tooLarge(limit: 1000) }
        server.setRoute("/big-chunked", Route(body: body, faults: Faults(chunked: true)))
        await expectFailure(request("/big-chunked", .file, maxSize: 1000)) { $0 == .tooLarge(limit: 1000) }
        try #expect(leftovers() == [])
    }

    /// The body is paced (2 s in all) so reading it on after the refusal would be unmistakable.
    func aBodyRefusedAtTheHeadIsNotReadOn() async throws {
        let large = [UInt8](repeating: 7, count: 8 << 20)
        for strategy in FetchStrategy.storing {
            let path = "/refused-\(strategy.rawValue)"
            server.setRoute(path, Route(body: large, faults: Faults(bytesPerSecond: 4 << 20)))
            let abandonedBefore = abandoned(server.counters.snapshot)
            await expectFailure(request(path, strategy, maxSize: 1000)) { $0 == .tooLarge(limit: 1000) }
            try await waitUntilAbandoned(moreThan: abandonedBefore)
            #expect(server.counters.bodyBytesSent(for: path) < large.count / 2, "\(strategy)")
        }
        try #expect(leftovers() == [])
    }

    func stallBeyondTheIdleTimeoutTimesOut() async throws {
        server.setRoute("/stall", Route(body: body, faults: Faults(stallAfterBytes: 1000)))
        await expectFailure(request("/stall", .file, idleTimeout: .milliseconds(200))) { $0 == .timedOut }
        try #expect(leftovers() == [])
    }

    /// The idle timeout is about silence: a slow body whose whole transfer takes longer than
    /// the timeout, with bytes arriving every 50 ms, completes.
    func aSlowButLiveBodyOutlastsTheIdleTimeout(idleTimeout: Duration) async throws {
        let slow = Array(body.prefix(Int(idleTimeout.seconds * 2.5 * 100_000)))
        server.setRoute("/slow", Route(body: slow, faults: Faults(bytesPerSecond: 100_000)))
        let started = ContinuousClock.now
        let result = try await transport.fetch(request("/slow", idleTimeout: idleTimeout)) { _ in }
        try #expect(bytes(result) == slow)
        #expect(ContinuousClock.now - started > idleTimeout, "the transfer outlasted the timeout")
    }

    func cancelMidBodyEndsPromptlyClosesTheConnectionAndLeavesNoFile() async throws {
        for strategy in FetchStrategy.storing {
            let path = "/stalled-\(strategy.rawValue)"
            server.setRoute(path, Route(body: body, faults: Faults(stallAfterBytes: 50_000)))
            let abandonedBefore = abandoned(server.counters.snapshot)
            let received = Mutex(0)
            let transport = self.transport, fetchRequest = request(path, strategy)
            let task = Task { try await transport.fetch(fetchRequest) { p in received.withLock { $0 = p.received } } }
            try await server.counters.waitUntil { $0.bodyBytesSent(for: path) >= 50_000 }
            while received.withLock({ $0 }) == 0 { await Task.yield() }   // bytes reached the client
            task.cancel()
            let result = await task.result
            #expect(throws: FetchError.cancelled) { try result.get() }
            try await waitUntilAbandoned(moreThan: abandonedBefore)
            try #expect(leftovers() == [], "\(strategy): temp file removed")
        }
    }

    /// Cancelled while the server holds the head: `.cancelled` at once, the connection closed
    /// (over HTTP/2, the stream reset).
    func cancelBeforeTheHeadEndsPromptly() async throws {
        let gate = Gate()
        server.setRoute("/held", Route(body: body, faults: Faults(gate: gate)))
        let abandonedBefore = abandoned(server.counters.snapshot)
        let transport = self.transport, fetchRequest = request("/held", .file)
        let task = Task { try await transport.fetch(fetchRequest) { _ in } }
        try await gate.waitUntilHeld()
        let cancelled = ContinuousClock.now
        task.cancel()
        let result = await task.result
        #expect(ContinuousClock.now - cancelled < .seconds(2), "the cancelled fetch lingered")
        #expect(throws: FetchError.cancelled) { try result.get() }
        try await waitUntilAbandoned(moreThan: abandonedBefore)
        try #expect(leftovers() == [])
    }

    /// `/hop-<name>-<i>` redirects to `/hop-<name>-<i+1>`; the last serves the body.
    private func redirectChain(_ name: String, hops: Int) -> String {
        for index in 0..<hops {
            server.setRoute("/hop-\(name)-\(index)",
                            Route(body: [], faults: Faults(status: 302, headers: ["Location": "/hop-\(name)-\(index + 1)"])))
        }
        server.setRoute("/hop-\(name)-\(hops)", Route(body: body))
        return "/hop-\(name)-0"
    }

    func redirectsAreFollowedAndReported() async throws {
        for strategy in FetchStrategy.storing {
            let start = redirectChain("ok-\(strategy.rawValue)", hops: 2)
            let result = try await transport.fetch(request(start, strategy)) { _ in }
            try #expect(bytes(result) == body)
            #expect(result.redirects == 2)
            #expect(result.finalURL == server.url(for: "/hop-ok-\(strategy.rawValue)-2"))
        }
        // The limit itself is allowed (5 redirects); one more is not.
        let five = try await transport.fetch(request(redirectChain("five", hops: 5))) { _ in }
        #expect(five.redirects == 5)
        try #expect(bytes(five) == body)
        await expectFailure(request(redirectChain("six", hops: 6))) { $0 == .tooManyRedirects(limit: 5) }
        #expect(server.counters.requests(for: "/hop-six-6") == 0, "the request beyond the limit was not made")
        try #expect(leftovers() == [])
    }

    func aRedirectLoopFailsAsTooManyRedirects() async throws {
        server.setRoute("/loop-a", Route(body: [], faults: Faults(status: 302, headers: ["Location": "/loop-b"])))
        server.setRoute("/loop-b", Route(body: [], faults: Faults(status: 301, headers: ["Location": "/loop-a"])))
        for strategy in FetchStrategy.storing {
            await expectFailure(request("/loop-a", strategy)) { $0 == .tooManyRedirects(limit: 5) && !$0.isTransient }
        }
        try #expect(leftovers() == [])
    }

    /// Not http(s), or no host: refused before any request (the transport is safe alone).
    func unusableURLsFailWithoutARequest() async throws {
        let before = server.counters.totalRequests
        var ftp = request("/a.bin")
        ftp.url = URL(string: "ftp://127.0.0.1:\(server.port)/a.bin")!
        await expectFailure(ftp) { $0 == .unsupportedScheme("ftp") }
        var noHost = request("/a.bin")
        noHost.url = URL(string: "http:///a.bin")!
        await expectFailure(noHost) { if case .invalidURL = $0 { true } else { false } }
        #expect(server.counters.totalRequests == before)
    }

    func aRefusedConnectionIsATransportError() async throws {
        let closed = try await TestServer.start(serverConfiguration)
        let url = closed.url(for: "/a.bin")
        try await closed.shutdown()
        var refused = request("/a.bin")
        refused.url = url
        await expectFailure(refused) { if case .transport = $0 { $0.isTransient } else { false } }
    }
}
