import Foundation
import ImagoTestServer
import Synchronization
import Testing
@testable import Imago

/// What HTTP/1.1 gave for free and HTTP/2 must keep on a shared connection, against the test
/// server's gates and counters (the nginx HTTP/2 tests show the same against nginx's log): a
/// cancelled load resets its own stream while the loads beside it and after it go on over the
/// same connection; a server's reset mid-body is a truncation that leaves the connection up;
/// a held streaming read holds back only its own stream (flow control). HTTP/2 runs only.
extension TransportContract {
    /// One load held mid-body by a gate, another beside it, the held one cancelled, one more
    /// after it: all on the one connection, the server seeing the stream reset and the held
    /// response never completed.
    func cancellingOneLoadResetsOnlyItsStream() async throws {
        let gate = Gate()
        defer { gate.open() }
        server.setRoute("/held.bin", Route(body: body, faults: Faults(stallAfterBytes: 50_000, gate: gate)))
        server.setRoute("/beside.bin", Route(body: body))
        let transport = self.transport, held = request("/held.bin")
        let heldLoad = Task { try await transport.fetch(held) { _ in } }
        try await gate.waitUntilHeld()   // mid-body: 50,000 bytes out, the rest parked

        let beside = try await transport.fetch(request("/beside.bin")) { _ in }
        try #expect(bytes(beside) == body, "beside the held stream")
        expectNegotiated(beside.head)

        let cancelledAt = ContinuousClock.now
        heldLoad.cancel()
        let outcome = await heldLoad.result
        #expect(ContinuousClock.now - cancelledAt < .seconds(2), "cancelled at once")
        #expect(throws: FetchError.cancelled) { try outcome.get() }
        try await server.counters.waitUntil { $0.streamsResetByClient == 1 }

        let later = try await transport.fetch(request("/beside.bin")) { _ in }
        try #expect(bytes(later) == body, "after the reset")
        let counters = server.counters.snapshot
        #expect(counters.responsesCompleted(for: "/held.bin") == 0, "\(counters)")
        #expect(counters.bodyBytesSent(for: "/held.bin") < body.count, "\(counters)")
        #expect(counters.connectionsOpened == 1 && counters.connectionsClosed == 0, "one connection throughout: \(counters)")
        #expect(counters.connectionsClosedByClient == 0, "\(counters)")
    }

    /// The server cuts a body short (over HTTP/2: RST_STREAM): `.truncated` with the bytes that
    /// came, and the next load goes over the same connection.
    func aStreamResetByTheServerIsATruncationAndTheConnectionGoesOn() async throws {
        server.setRoute("/cut.bin", Route(body: body, faults: Faults(closeAfterBytes: 100_000)))
        server.setRoute("/whole.bin", Route(body: body))
        let first = try await transport.fetch(request("/whole.bin")) { _ in }
        try #expect(bytes(first) == body)
        await expectFailure(request("/cut.bin")) { error in
            if case .truncated(expected: body.count, received: let got) = error { return got < body.count }
            return false
        }
        let after = try await transport.fetch(request("/whole.bin")) { _ in }
        try #expect(bytes(after) == body)
        let counters = server.counters.snapshot
        #expect(counters.connectionsOpened == 1 && counters.connectionsClosed == 0, "one connection throughout: \(counters)")
        #expect(counters.streamsResetByClient == 0, "the server reset it, not the client: \(counters)")
    }

    /// A streaming read whose consumer waits at its first piece holds back its own stream by
    /// HTTP/2 flow control: three loads beside it complete over the same connection while the
    /// server cannot finish the held body (12 MiB, more than AsyncHTTPClient's 8 MiB stream
    /// window), which completes once the consumer is let go.
    func aHeldStreamingReadHoldsOnlyItsOwnStream() async throws {
        let size = 12 << 20
        server.setRoute("/large.bin", Route(body: [UInt8](repeating: 0xA5, count: size)))
        server.setRoute("/beside.bin", Route(body: body))
        let gate = Gate()
        defer { gate.open() }
        let (firstPieces, firstPiece) = AsyncStream<Void>.makeStream()
        var held = request("/large.bin", .stream)
        held.bodyConsumer = BodyConsumerReference(HeldConsumer(gate: gate, firstPiece: firstPiece))
        let transport = self.transport, heldRequest = held
        let heldFetch = Task { await transport.fetchResult(heldRequest) }
        var pieces = firstPieces.makeAsyncIterator()
        await pieces.next()   // the consumer is holding its first piece

        for index in 1...3 {
            let beside = try await transport.fetch(request("/beside.bin")) { _ in }
            try #expect(bytes(beside) == body, "beside the held stream, \(index)")
        }
        let whileHeld = server.counters.snapshot
        #expect(whileHeld.responsesCompleted(for: "/large.bin") == 0, "the server finished a body nobody read: \(whileHeld)")
        #expect(whileHeld.bodyBytesSent(for: "/large.bin") < size, "\(whileHeld)")

        gate.open()
        let result = await heldFetch.value
        #expect(try result.get().receivedBytes == size)
        try await server.counters.waitUntil { $0.responsesCompleted(for: "/large.bin") == 1 }
        let counters = server.counters.snapshot
        #expect(counters.connectionsOpened == 1, "one connection throughout: \(counters)")
    }
}
