import ImagoTestServer
import NIOCore
import Testing

/// The delay proxy through real sockets: bytes intact and in order, delays and a rate cap
/// that hold (lower bounds only: a busy machine may always be slower), counters that match,
/// closes that travel, and a bounded queue.
@Suite(.timeLimit(.minutes(1))) struct DelayProxyTests {
    /// Runs `body` with an echo server behind a proxy of `configuration`, stopping both after.
    private func withEchoProxy(
        _ configuration: DelayProxy.Configuration,
        _ body: (DelayProxy) async throws -> Void
    ) async throws {
        let echo = try await EchoServer.start()
        let proxy = try await DelayProxy.start(upstream: .init(port: echo.port), configuration: configuration)
        do {
            try await body(proxy)
        } catch {
            try await proxy.stop()
            await echo.stop()
            throw error
        }
        try await proxy.stop()
        await echo.stop()
    }

    /// Sends `bytes` in pieces, half-closes, and returns everything echoed until the close.
    private func echoThrough(_ proxy: DelayProxy, _ bytes: [UInt8], pieces: [Int] = [65_536]) async throws -> [UInt8] {
        try await RawTCPConnection.with(port: proxy.port) { connection in
            async let received = connection.readToEnd()
            try await connection.write(bytes, pieces: pieces)
            connection.outbound.finish()
            return try await received
        }
    }

    @Test func bytesArriveIntactAndInOrderBothWaysAndAreCounted() async throws {
        let configuration = DelayProxy.Configuration(
            clientToServerDelay: .milliseconds(2), serverToClientDelay: .milliseconds(3))
        try await withEchoProxy(configuration) { proxy in
            let sent = patternBytes(600_000)
            let received = try await echoThrough(proxy, sent, pieces: [1, 7, 1_500, 16_384, 65_536, 333])
            #expect(received.count == sent.count)
            #expect(received == sent)
            try await proxy.counters.waitUntil { $0.openConnections == 0 }
            let counters = proxy.counters.snapshot
            #expect(counters.connectionsAccepted == 1)
            #expect(counters.bytesClientToServer == sent.count)
            #expect(counters.bytesServerToClient == sent.count)
            #expect(counters.upstreamConnectFailures == 0)
        }
    }

    @Test(arguments: [false, true])
    func aRoundTripTakesAtLeastTheTwoDelays(delaysConnectionSetup: Bool) async throws {
        let configuration = DelayProxy.Configuration(
            clientToServerDelay: .milliseconds(20), serverToClientDelay: .milliseconds(30),
            delaysConnectionSetup: delaysConnectionSetup)
        let roundTrip = configuration.roundTripTime
        #expect(roundTrip == .milliseconds(50))
        try await withEchoProxy(configuration) { proxy in
            let clock = ContinuousClock()
            let connecting = clock.now
            let (cold, warm) = try await RawTCPConnection.with(port: proxy.port) { connection in
                var inbound = connection.inbound.makeAsyncIterator()
                try await connection.write(Array("ping".utf8))
                #expect(try await inbound.read(count: 4) == Array("ping".utf8))
                let cold = connecting.duration(to: clock.now)
                let sending = clock.now
                try await connection.write(Array("pong".utf8))
                #expect(try await inbound.read(count: 4) == Array("pong".utf8))
                return (cold, sending.duration(to: clock.now))
            }
            // A cold connection pays one more round trip for its simulated handshake.
            #expect(cold >= (delaysConnectionSetup ? roundTrip * 2 : roundTrip))
            #expect(warm >= roundTrip)
        }
    }

    enum Direction: String, CaseIterable, Sendable { case clientToServer, serverToClient }

    @Test(arguments: Direction.allCases)
    func aCappedDirectionTakesAtLeastSizeOverRate(direction: Direction) async throws {
        let rate = 400_000
        let configuration = DelayProxy.Configuration(
            clientToServerBytesPerSecond: direction == .clientToServer ? rate : nil,
            serverToClientBytesPerSecond: direction == .serverToClient ? rate : nil,
            delaysConnectionSetup: false)
        try await withEchoProxy(configuration) { proxy in
            let sent = patternBytes(100_000, seed: 7)
            let clock = ContinuousClock()
            let started = clock.now
            let received = try await echoThrough(proxy, sent)
            let elapsed = started.duration(to: clock.now)
            #expect(received == sent)
            #expect(elapsed >= .seconds(Double(sent.count) / Double(rate)))
        }
    }

    @Test func aSlowDirectionStopsTheProxyReadingInsteadOfQueueingWithoutBound() async throws {
        let bound = 32_768
        let configuration = DelayProxy.Configuration(
            serverToClientBytesPerSecond: 200_000, delaysConnectionSetup: false, maxQueuedBytesPerDirection: bound)
        try await withEchoProxy(configuration) { proxy in
            try await RawTCPConnection.with(port: proxy.port) { connection in
                // The echo returns 1 MiB at loopback speed; the client side drains 200 KB/s.
                async let written: Void = connection.write(patternBytes(1_048_576, seed: 3))
                try await proxy.counters.waitUntil {
                    $0.readPauses >= 1 && $0.bytesServerToClient >= 2 * bound
                }
                // At most one read (64 KiB) beyond the bound, never the megabyte on offer.
                #expect(proxy.counters.peakQueuedBytes >= bound)
                #expect(proxy.counters.peakQueuedBytes <= bound + 65_536)
                try await proxy.stop()
                _ = try? await written
            }
        }
    }

    @Test func anUpstreamCloseReachesTheClientAfterTheBytesBeforeIt() async throws {
        let server = try await TestServer.start()
        let body = patternBytes(200_000, seed: 11)
        server.setRoute("/a.bin", Route(body: body, contentType: "application/octet-stream"))
        let proxy = try await DelayProxy.start(
            upstream: .init(port: server.port),
            configuration: .init(serverToClientDelay: .milliseconds(30), delaysConnectionSetup: false))
        do {
            let request = "GET /a.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            // The client never half-closes: only the server's close can end what it reads.
            let received = try await RawTCPConnection.with(port: proxy.port) { connection in
                try await connection.write(Array(request.utf8))
                return try await connection.readToEnd()
            }
            #expect(received.count > body.count)
            #expect(Array(received.suffix(body.count)) == body)
            try await proxy.counters.waitUntil { $0.openConnections == 0 }
            #expect(proxy.counters.bytesServerToClient == received.count)
            #expect(proxy.counters.bytesClientToServer == request.utf8.count)
        } catch {
            try await proxy.stop()
            try await server.shutdown()
            throw error
        }
        try await proxy.stop()
        try await server.shutdown()
    }

    @Test func aClientCloseReachesTheUpstreamAfterTheBytesBeforeIt() async throws {
        let server = try await TestServer.start()
        server.setRoute("/a.bin", Route(body: patternBytes(1_000, seed: 5)))
        let proxy = try await DelayProxy.start(
            upstream: .init(port: server.port),
            configuration: .init(clientToServerDelay: .milliseconds(20), delaysConnectionSetup: false))
        do {
            // Written and closed at once: the request is still on the simulated link when
            // the close comes, and must reach the server before the close does.
            try await RawTCPConnection.with(port: proxy.port) { connection in
                try await connection.write(Array("GET /a.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            }
            try await server.counters.waitUntil { $0.connectionsClosed == 1 }
            #expect(server.counters.requests(for: "/a.bin") == 1)
            try await proxy.counters.waitUntil { $0.openConnections == 0 }
        } catch {
            try await proxy.stop()
            try await server.shutdown()
            throw error
        }
        try await proxy.stop()
        try await server.shutdown()
    }

    @Test func aRefusedUpstreamClosesTheClient() async throws {
        let gone = try await EchoServer.start()
        await gone.stop()
        let proxy = try await DelayProxy.start(upstream: .init(port: gone.port))
        let received = try await RawTCPConnection.with(port: proxy.port) { connection in
            try await connection.readToEnd()
        }
        #expect(received.isEmpty)
        try await proxy.counters.waitUntil { $0.upstreamConnectFailures == 1 && $0.openConnections == 0 }
        #expect(proxy.counters.connectionsAccepted == 1)
        try await proxy.stop()
    }

    @Test(arguments: [
        DelayProxy.Configuration(clientToServerDelay: .milliseconds(-1)),
        DelayProxy.Configuration(serverToClientBytesPerSecond: 0),
        DelayProxy.Configuration(maxQueuedBytesPerDirection: 0),
    ])
    func aConfigurationOutOfRangeIsRefusedByName(configuration: DelayProxy.Configuration) async throws {
        let error = await #expect(throws: TestServerError.self) {
            _ = try await DelayProxy.start(upstream: .init(port: 9), configuration: configuration)
        }
        #expect(error?.description.contains("invalid configuration: a delay proxy's") == true)
    }
}
