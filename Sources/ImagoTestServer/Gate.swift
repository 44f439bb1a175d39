/// A barrier a test holds shut to freeze a response at a known point, then opens.
///
/// Why: "the request has not completed yet" is only checkable without sleeps if the server
/// parks the response at a point the test controls and tells the test it is parked. A
/// response waiting on the gate is *held*; ``waitUntilHeld(count:timeout:)`` resumes when
/// enough are, and ``open()`` releases them all. Used through ``Faults/gate``: it holds the
/// response head, or, with ``Faults/stallAfterBytes``, the rest of the body.
public final class Gate: Sendable, CustomStringConvertible {
    struct State: Sendable, CustomStringConvertible {
        var isOpen: Bool
        var held: [UInt64: @Sendable () -> Void] = [:]
        var nextHoldID: UInt64 = 0
        var totalHeld = 0
        var openObservers: [@Sendable () -> Void] = []

        var description: String {
            "gate \(isOpen ? "open" : "shut"), holding \(held.count), held \(totalHeld) in all"
        }
    }

    private let state: AwaitableState<State>

    /// A gate, shut unless `isOpen` (default `false`).
    public init(isOpen: Bool = false) {
        state = AwaitableState(State(isOpen: isOpen))
    }

    /// Whether responses pass without waiting.
    public var isOpen: Bool { state.value.isOpen }

    /// Responses waiting on the gate right now.
    public var heldCount: Int { state.value.held.count }

    /// Responses that have waited on the gate since it was made (released ones included).
    public var totalHeld: Int { state.value.totalHeld }

    /// `gate open|shut, holding N, held M in all`: the state a timed-out wait reports.
    public var description: String { state.value.description }

    /// Opens the gate: every held response continues, and later ones pass straight through.
    public func open() {
        let (released, observers) = state.update { state -> ([@Sendable () -> Void], [@Sendable () -> Void]) in
            let wasOpen = state.isOpen
            state.isOpen = true
            let released = Array(state.held.values)
            state.held = [:]
            return (released, wasOpen ? [] : state.openObservers)
        }
        for observer in observers { observer() }
        for release in released { release() }
    }

    /// Calls `observer` on every later ``open()`` of a shut gate, before the held responses
    /// continue (for a log of what a test did, e.g. the conformance suite's steps); opening an
    /// open gate again (a cleanup `defer`) is not an opening. Default: no observer.
    public func onOpen(_ observer: @escaping @Sendable () -> Void) {
        state.update { $0.openObservers.append(observer) }
    }

    /// Shuts the gate again: responses arriving from now on are held until the next ``open()``.
    public func close() {
        state.update { $0.isOpen = false }
    }

    /// Suspends until at least `count` (default 1) responses are held at once.
    ///
    /// `timeout` (default 5 seconds) is only a failure timeout: it throws
    /// ``TestServerError/timedOut(_:)``.
    public func waitUntilHeld(count: Int = 1, timeout: Duration = .seconds(5)) async throws {
        try await state.wait(until: { $0.held.count >= count }, timeout: timeout, what: "\(count) held response(s)")
    }

    /// Suspends until the gate is open, for code other than the server that shares the gate.
    /// `timeout` defaults to 5 seconds and only turns a hang into ``TestServerError/timedOut(_:)``.
    public func waitUntilOpen(timeout: Duration = .seconds(5)) async throws {
        try await state.wait(until: { $0.isOpen }, timeout: timeout, what: "gate opening")
    }

    // MARK: Used by the response writer.

    /// Holds `release` until the gate opens; returns `nil` (and never calls `release`) if
    /// the gate is open now, else a token for ``cancelHold(_:)``.
    func hold(_ release: @escaping @Sendable () -> Void) -> UInt64? {
        state.update { state -> UInt64? in
            if state.isOpen { return nil }
            state.nextHoldID += 1
            state.held[state.nextHoldID] = release
            state.totalHeld += 1
            return state.nextHoldID
        }
    }

    /// Forgets a hold whose connection went away, so ``heldCount`` stays truthful.
    func cancelHold(_ token: UInt64) {
        state.update { _ = $0.held.removeValue(forKey: token) }
    }
}
