/// A consistent copy of every counter at one moment.
///
/// Why a snapshot: a test's condition must see requests, bytes and connections as of the
/// same change, not one field read before and another after a concurrent update.
/// Paths are the request target's path, percent-decoded, without the query string.
public struct CounterSnapshot: Sendable, Equatable, CustomStringConvertible {
    /// Requests whose head arrived, every method included.
    public internal(set) var totalRequests = 0
    /// ``totalRequests`` by path.
    public internal(set) var requestsByPath: [String: Int] = [:]
    /// Requests carrying If-None-Match or If-Modified-Since (revalidations), by path.
    public internal(set) var conditionalRequestsByPath: [String: Int] = [:]
    /// The path of every request, in the order their heads arrived (what a priority test reads).
    public internal(set) var requestOrder: [String] = []
    /// Response body bytes the socket accepted (headers and chunk framing excluded).
    public internal(set) var totalBodyBytesSent = 0
    /// ``totalBodyBytesSent`` by path.
    public internal(set) var bodyBytesSentByPath: [String: Int] = [:]
    /// Responses written to the end (for `closeAfterBytes` or a stall, never).
    public internal(set) var totalResponsesCompleted = 0
    /// ``totalResponsesCompleted`` by path.
    public internal(set) var responsesCompletedByPath: [String: Int] = [:]
    /// TCP connections accepted.
    public internal(set) var connectionsOpened = 0
    /// TCP connections closed, by either side.
    public internal(set) var connectionsClosed = 0
    /// Connections the client closed (or reset) while a request on it had no complete
    /// response yet: what a client-side cancel looks like to the server.
    public internal(set) var connectionsClosedByClient = 0
    /// HTTP/2 streams the client reset (RST_STREAM) while their response was unfinished, the
    /// connection staying open: what a client-side cancel looks like over HTTP/2. A stream
    /// that ends because its whole connection closed counts in ``connectionsClosedByClient``
    /// instead.
    public internal(set) var streamsResetByClient = 0

    /// Every request in arrival order with its header fields (names lowercased, repeats
    /// joined with ", "): what a test reads to see `Range` / `If-Range` asked.
    public internal(set) var requestLog: [LoggedRequest] = []

    /// All counters at zero and every log empty: what a new server starts from.
    public init() {}

    /// The logged requests for `path`, in arrival order.
    public func requestLog(for path: String) -> [LoggedRequest] { requestLog.filter { $0.path == path } }

    /// Requests for `path` so far.
    public func requests(for path: String) -> Int { requestsByPath[path, default: 0] }
    /// Conditional requests (If-None-Match or If-Modified-Since) for `path` so far.
    public func conditionalRequests(for path: String) -> Int { conditionalRequestsByPath[path, default: 0] }
    /// Body bytes sent for `path` so far.
    public func bodyBytesSent(for path: String) -> Int { bodyBytesSentByPath[path, default: 0] }
    /// Complete responses for `path` so far.
    public func responsesCompleted(for path: String) -> Int { responsesCompletedByPath[path, default: 0] }

    /// One line with the per-path requests, conditional requests, body bytes and completed
    /// responses, their totals, the connections opened, closed and closed by the client, and
    /// the HTTP/2 streams the client reset.
    public var description: String {
        "requests \(requestsByPath) (total \(totalRequests), conditional \(conditionalRequestsByPath)), body bytes \(bodyBytesSentByPath) "
            + "(total \(totalBodyBytesSent)), completed \(responsesCompletedByPath), connections "
            + "opened \(connectionsOpened) closed \(connectionsClosed) by client \(connectionsClosedByClient), "
            + "streams reset by client \(streamsResetByClient)"
    }
}

/// One request as the server received it.
public struct LoggedRequest: Sendable, Equatable {
    /// The percent-decoded path, query dropped.
    public let path: String
    /// Header fields, names lowercased, repeats joined with ", ".
    public let headers: [String: String]
    /// The protocol it came over: `HTTP/1.1`, `HTTP/1.0`, or `HTTP/2.0` for an HTTP/2 stream.
    public var httpVersion: String = "HTTP/1.1"
}

/// The server's live counters: read them at any time, or await a condition on them.
///
/// Why awaitable: integration tests must not sleep to let the server "catch up". Every
/// counter change re-checks the pending ``waitUntil(timeout:_:)`` conditions, so a test
/// resumes exactly when the server has done what it waits for.
@dynamicMemberLookup
public final class ServerCounters: Sendable {
    private let state = AwaitableState(CounterSnapshot())

    init() {}

    /// All counters as of now.
    public var snapshot: CounterSnapshot { state.value }

    /// One counter as of now, e.g. `server.counters.totalRequests`.
    public subscript<T>(dynamicMember keyPath: KeyPath<CounterSnapshot, T>) -> T {
        snapshot[keyPath: keyPath]
    }

    /// Requests for `path` so far.
    public func requests(for path: String) -> Int { snapshot.requests(for: path) }
    /// Conditional requests (If-None-Match or If-Modified-Since) for `path` so far.
    public func conditionalRequests(for path: String) -> Int { snapshot.conditionalRequests(for: path) }
    /// Body bytes sent for `path` so far.
    public func bodyBytesSent(for path: String) -> Int { snapshot.bodyBytesSent(for: path) }
    /// Complete responses for `path` so far.
    public func responsesCompleted(for path: String) -> Int { snapshot.responsesCompleted(for: path) }

    /// Suspends until `condition` holds, e.g.
    /// `try await server.counters.waitUntil { $0.requests(for: "/a.jpg") == 1 }`.
    ///
    /// Returns at once if it already holds. `timeout` (default 5 seconds) is only a failure
    /// timeout: it throws ``TestServerError/timedOut(_:)`` with the counters in its message.
    /// The condition runs under the counters' lock: keep it a quick test on its argument.
    public func waitUntil(
        timeout: Duration = .seconds(5),
        _ condition: @escaping @Sendable (CounterSnapshot) -> Bool
    ) async throws {
        try await state.wait(until: condition, timeout: timeout, what: "counter condition")
    }

    /// Sets every counter back to zero (connections still open stay open, uncounted).
    public func reset() {
        state.update { $0 = CounterSnapshot() }
    }

    // MARK: Recording, called by the connection handlers.

    func requestReceived(path: String, headers: [(String, String)] = [], httpVersion: String = "HTTP/1.1") {
        var fields: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            fields[key] = fields[key].map { $0 + ", " + value } ?? value
        }
        state.update {
            $0.requestLog.append(LoggedRequest(path: path, headers: fields, httpVersion: httpVersion))
            $0.totalRequests += 1
            $0.requestsByPath[path, default: 0] += 1
            if fields["if-none-match"] != nil || fields["if-modified-since"] != nil {
                $0.conditionalRequestsByPath[path, default: 0] += 1
            }
            $0.requestOrder.append(path)
        }
    }

    func bodyBytesSent(_ count: Int, path: String) {
        guard count > 0 else { return }
        state.update {
            $0.totalBodyBytesSent += count
            $0.bodyBytesSentByPath[path, default: 0] += count
        }
    }

    func responseCompleted(path: String) {
        state.update {
            $0.totalResponsesCompleted += 1
            $0.responsesCompletedByPath[path, default: 0] += 1
        }
    }

    func connectionOpened() {
        state.update { $0.connectionsOpened += 1 }
    }

    func streamResetByClient() {
        state.update { $0.streamsResetByClient += 1 }
    }

    func connectionClosed(byClientMidResponse: Bool) {
        state.update {
            $0.connectionsClosed += 1
            if byClientMidResponse { $0.connectionsClosedByClient += 1 }
        }
    }
}
