import Synchronization

/// A value behind a lock that tasks can await a condition on.
///
/// Why: tests must wait for "the server has seen the request" or "the gate is holding a
/// response" without sleeping. Every mutation re-checks the registered conditions and
/// resumes the waiters whose condition now holds, so a waiter wakes on the exact change
/// it cares about; the timeout exists only to turn a hang into a test failure.
final class AwaitableState<Value: Sendable>: Sendable {
    private struct Waiter: Sendable {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Storage: Sendable {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterID: UInt64 = 0
    }

    private enum Registration: Sendable {
        case alreadySatisfied, cancelled, registered
    }

    private let storage: Mutex<Storage>

    init(_ value: Value) {
        storage = Mutex(Storage(value: value))
    }

    /// The current value (a copy).
    var value: Value {
        storage.withLock { $0.value }
    }

    /// Mutates the value, then resumes every waiter whose condition now holds.
    ///
    /// The conditions run under the lock, so they must be quick and must not touch this
    /// state again; they only see the value passed to them.
    @discardableResult
    func update<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        let (result, ready) = storage.withLock { storage in
            let result = body(&storage.value)
            var ready: [CheckedContinuation<Void, any Error>] = []
            for (id, waiter) in storage.waiters where waiter.condition(storage.value) {
                ready.append(waiter.continuation)
                storage.waiters[id] = nil
            }
            return (result, ready)
        }
        for continuation in ready { continuation.resume() }
        return result
    }

    /// Suspends until `condition` holds for the value, throwing
    /// ``TestServerError/timedOut(_:)`` after `timeout` (a failure timeout, never a way to
    /// order events) and `CancellationError` if the calling task is cancelled.
    func wait(
        until condition: @escaping @Sendable (Value) -> Bool,
        timeout: Duration,
        what: String
    ) async throws {
        if condition(value) { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.waitWithoutTimeout(until: condition) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TestServerError.timedOut("\(what) did not happen within \(timeout); state: \(self.value)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func waitWithoutTimeout(until condition: @escaping @Sendable (Value) -> Bool) async throws {
        let id = storage.withLock { storage in
            storage.nextWaiterID += 1
            return storage.nextWaiterID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let registration = storage.withLock { storage -> Registration in
                    if condition(storage.value) { return .alreadySatisfied }
                    // Checked under the lock: if cancellation raced ahead of registration,
                    // the cancellation handler found nothing to remove, so we resume here.
                    if Task.isCancelled { return .cancelled }
                    storage.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return .registered
                }
                switch registration {
                case .alreadySatisfied: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .registered: break
                }
            }
        } onCancel: {
            let waiter = storage.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}

/// Errors the test server reports to its callers.
public enum TestServerError: Error, CustomStringConvertible, Sendable {
    /// An awaited condition (counters, gate) did not hold before its failure timeout.
    case timedOut(String)
    /// The configuration cannot work, e.g. a `root` that is not a directory.
    case invalidConfiguration(String)

    /// `timed out: …` or `invalid configuration: …`, with the case's message.
    public var description: String {
        switch self {
        case .timedOut(let message): "timed out: \(message)"
        case .invalidConfiguration(let message): "invalid configuration: \(message)"
        }
    }
}
