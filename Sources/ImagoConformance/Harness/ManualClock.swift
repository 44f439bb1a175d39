import Synchronization

/// A clock that only moves when the test says so; sleepers wake when `advance` passes their
/// deadline. Lets retry back-off be tested without real waiting.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual clock: how far it is from the clock's start.
    public struct Instant: InstantProtocol {
        /// Time since the clock's start (zero when the clock was made).
        public var offset: Duration
        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other` (negative when `other` is earlier).
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Orders by `offset`.
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
        var cancelledEarly: Set<Int> = []
    }

    private let state = Mutex(State())
    /// A clock at zero with no sleepers.
    public init() {}
    /// The current instant; moves only through ``advance(by:)``.
    public var now: Instant { state.withLock { $0.now } }
    /// Zero: any deadline can be met exactly.
    public var minimumResolution: Duration { .zero }
    /// Sleepers waiting for a deadline (a check knows a back-off has begun when this rises).
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until ``advance(by:)`` reaches `deadline` (at once when it already has);
    /// `tolerance` is ignored. Throws `CancellationError` when the calling task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool? in
                    if state.cancelledEarly.remove(id) != nil { return false }
                    if deadline <= state.now { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                switch resumeNow {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration` and wakes every sleeper whose deadline it reached, after
    /// the move (they resume on their own executors).
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let ready = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in ready.keys { state.sleepers[id] = nil }
            return Array(ready.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
