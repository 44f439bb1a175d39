import Foundation
import Synchronization

/// A rising number (bytes received, events seen) that a task can await a threshold on, fed
/// from callbacks on any thread. Lets a scenario act "when 50% of the body has arrived" on the
/// exact callback that crossed it, never by sleeping.
final class Watermark: Sendable {
    private struct State {
        var value = 0
        var waiters: [(threshold: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var valueAtTimeout: Int?
    }

    private let state = Mutex(State())

    var value: Int { state.withLock { $0.value } }

    /// The value when the last `reached` timed out (nil if none did).
    var valueAtTimeout: Int? { state.withLock { $0.valueAtTimeout } }

    /// Raises the value to `newValue` if higher, waking the waiters it satisfies.
    func raise(to newValue: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.value = max(state.value, newValue)
            let value = state.value
            let ready = state.waiters.filter { $0.threshold <= value }.map(\.continuation)
            state.waiters.removeAll { $0.threshold <= value }
            return ready
        }
        ready.forEach { $0.resume() }
    }

    /// Adds one to the value.
    func increment() {
        raise(to: value + 1)
    }

    /// Returns once the value is at least `threshold`; throws after `timeout` (a failure
    /// timeout that turns a hang into an error, never a way to order events).
    func wait(atLeast threshold: Int, timeout: Duration = .seconds(10)) async throws {
        guard try await reached(threshold, timeout: timeout) else {
            throw BenchError("timed out waiting for \(threshold) (at \(valueAtTimeout ?? 0))")
        }
    }

    /// Whether the value reached `threshold` within `timeout`. On false the watermark is
    /// spent (raised to its maximum to release the waiter) and must not be reused.
    func reached(_ threshold: Int, timeout: Duration) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let satisfied = self.state.withLock { state -> Bool in
                        if state.value >= threshold { return true }
                        state.waiters.append((threshold, continuation))
                        return false
                    }
                    if satisfied { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            let reached = try await group.next() ?? false
            if !reached {
                state.withLock { $0.valueAtTimeout = $0.value }
                raise(to: Int.max)   // releases the waiter so the group can finish
            }
            group.cancelAll()
            return reached
        }
    }
}
