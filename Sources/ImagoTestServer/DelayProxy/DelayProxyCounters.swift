/// A consistent copy of a delay proxy's counters at one moment.
public struct DelayProxyCounterSnapshot: Sendable, Equatable, CustomStringConvertible {
    /// Client connections the proxy accepted.
    public internal(set) var connectionsAccepted = 0
    /// Connections accepted and not yet over: over once both the client's and the upstream's
    /// channels are closed (or the upstream could not be reached).
    public internal(set) var openConnections = 0
    /// Connections whose upstream connect failed (refused, unreachable); their clients were closed.
    public internal(set) var upstreamConnectFailures = 0
    /// Bytes from clients that the upstream sockets accepted.
    public internal(set) var bytesClientToServer = 0
    /// Bytes from the upstream that the client sockets accepted.
    public internal(set) var bytesServerToClient = 0
    /// How many times the proxy withheld a read from a sender because that direction held
    /// ``DelayProxy/Configuration/maxQueuedBytesPerDirection`` or its receiver was not taking bytes.
    public internal(set) var readPauses = 0
    /// The most bytes any one direction of any connection held waiting out its delay. Over
    /// the configured bound by at most one read (up to 64 KiB), or, once the sender has
    /// half-closed, by what its socket still held (NIO reads a closed input to its end).
    public internal(set) var peakQueuedBytes = 0

    /// All zero: what a new proxy starts from.
    public init() {}

    /// One line with every counter.
    public var description: String {
        "connections accepted \(connectionsAccepted) open \(openConnections) upstream failures \(upstreamConnectFailures), "
            + "bytes client→server \(bytesClientToServer) server→client \(bytesServerToClient), "
            + "read pauses \(readPauses), peak queued \(peakQueuedBytes)"
    }
}

/// A delay proxy's live counters: read them at any time, or await a condition on them.
///
/// Why awaitable: a test waits for "the proxy has forwarded every byte" or "the proxy has
/// stopped reading" on the exact change, never by sleeping.
@dynamicMemberLookup
public final class DelayProxyCounters: Sendable {
    private let state = AwaitableState(DelayProxyCounterSnapshot())

    init() {}

    /// All counters as of now.
    public var snapshot: DelayProxyCounterSnapshot { state.value }

    /// One counter as of now, e.g. `proxy.counters.bytesServerToClient`.
    public subscript<T>(dynamicMember keyPath: KeyPath<DelayProxyCounterSnapshot, T>) -> T {
        snapshot[keyPath: keyPath]
    }

    /// Suspends until `condition` holds, e.g.
    /// `try await proxy.counters.waitUntil { $0.openConnections == 0 }`.
    ///
    /// Returns at once if it already holds. `timeout` (default 5 seconds) is only a failure
    /// timeout: it throws ``TestServerError/timedOut(_:)`` with the counters in its message.
    public func waitUntil(
        timeout: Duration = .seconds(5),
        _ condition: @escaping @Sendable (DelayProxyCounterSnapshot) -> Bool
    ) async throws {
        try await state.wait(until: condition, timeout: timeout, what: "delay proxy condition")
    }

    // MARK: Recording, called on the proxy's event loop.

    func connectionAccepted() {
        state.update {
            $0.connectionsAccepted += 1
            $0.openConnections += 1
        }
    }

    func connectionEnded() {
        state.update { $0.openConnections -= 1 }
    }

    func upstreamConnectFailed() {
        state.update { $0.upstreamConnectFailures += 1 }
    }

    func forwarded(_ count: Int, toUpstream: Bool) {
        state.update {
            if toUpstream { $0.bytesClientToServer += count } else { $0.bytesServerToClient += count }
        }
    }

    func readPaused() {
        state.update { $0.readPauses += 1 }
    }

    func queued(_ bytes: Int) {
        state.update { $0.peakQueuedBytes = max($0.peakQueuedBytes, bytes) }
    }
}
