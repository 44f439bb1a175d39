import Synchronization

/// Ends a fetch that went quiet (`FetchRequest.idleTimeout`) or ran past its total limit.
///
/// Why not AsyncHTTPClient's read timeout: that is one value per client in whole `TimeAmount`s
/// of socket silence, while the idle timeout belongs to each request, and its time also runs
/// while connecting and waiting for the head. The watchdog runs beside the exchange in the
/// fetch's task group; when it fires, the group cancels the exchange, which closes the
/// connection. Times are the continuous clock's, exact to the nanosecond (no rounding).
struct FetchWatchdog: Sendable {
    /// When something last arrived, touched by the exchange. Time the exchange spends on its
    /// own work (storing a chunk; a streaming decode waiting for its decode slot at the header)
    /// is not the server's silence: while that runs the idle clock stands still.
    final class Activity: Sendable {
        private struct State { var last = ContinuousClock.now, busy = 0 }
        private let state = Mutex(State())
        func touch() { state.withLock { $0.last = .now } }
        /// Now while local work runs, else when something last arrived.
        var lastTouched: ContinuousClock.Instant { state.withLock { $0.busy > 0 ? .now : $0.last } }
        func beginLocalWork() { state.withLock { $0.busy += 1 } }
        /// Ends local work; the idle clock restarts from now.
        func endLocalWork() { state.withLock { $0.busy -= 1; $0.last = .now } }
    }

    let activity = Activity()
    /// nil: no idle limit.
    let idleTimeout: Duration?
    /// nil: no total limit.
    let deadline: ContinuousClock.Instant?

    /// A watchdog for `idleTimeout` of silence (off unless positive and shorter than
    /// `FetchRequest.noIdleTimeout`) and an optional total limit counted from now.
    init(idleTimeout: Duration, totalTimeout: Duration?) {
        // From a billion seconds (31 years) a timeout means "never"; it also keeps the deadline
        // arithmetic on `ContinuousClock.Instant` far from overflow.
        self.idleTimeout = idleTimeout > .zero && idleTimeout < FetchRequest.noIdleTimeout ? idleTimeout : nil
        self.deadline = totalTimeout.map { ContinuousClock.now.advanced(by: $0) }
    }

    /// Returns `.timedOut` when a limit passes, or nil once the task is cancelled (the exchange
    /// finished first, or the caller gave up).
    func run() async -> FetchError? {
        let clock = ContinuousClock()
        while !Task.isCancelled {
            let idleEnd = idleTimeout.map { activity.lastTouched.advanced(by: $0) }
            guard let wake = [idleEnd, deadline].compactMap({ $0 }).min() else {
                // No limit at all: wait for the cancellation that ends the fetch.
                while (try? await clock.sleep(for: .seconds(3600))) != nil {}
                return nil
            }
            if clock.now >= wake {
                // The idle end may have moved while this task slept; only a real silence counts.
                if let deadline, clock.now >= deadline { return .timedOut }
                if let idleTimeout, clock.now >= activity.lastTouched.advanced(by: idleTimeout) { return .timedOut }
                continue
            }
            do { try await clock.sleep(until: wake, tolerance: .milliseconds(1)) } catch { return nil }
        }
        return nil
    }
}
