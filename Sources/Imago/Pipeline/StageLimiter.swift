import Synchronization

/// Bounds how many operations of one stage (network, decode) run at once. Waiters are admitted
/// highest priority first, judged when a slot frees (so a priority raised while queued counts);
/// equal priorities are first come, first served. A cancelled waiter leaves the queue.
final class StageLimiter: Sendable {
    private struct Waiter {
        let id: Int
        let priority: @Sendable () -> ImageRequestPriority
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var running = 0
        var waiters: [Waiter] = []
        var nextID = 0
        /// Waiters with an id that have not queued yet; a cancel removes the id.
        var pending: Set<Int> = []
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = max(1, limit) }

    /// Operations queued for a slot (tests use it to know a waiter is in line).
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Operations holding a slot now (0 when the stage is idle).
    var runningCount: Int { state.withLock { $0.running } }

    /// Runs `body` once a slot is free; returns nil (without running it) if cancelled while waiting.
    func run<T: Sendable>(priority: @escaping @Sendable () -> ImageRequestPriority,
                          _ body: () async -> T) async -> T? {
        guard await acquire(priority: priority) else { return nil }
        defer { release() }
        return await body()
    }

    private func acquire(priority: @escaping @Sendable () -> ImageRequestPriority) async -> Bool {
        let id = state.withLock { state -> Int? in
            if state.running < limit && state.waiters.isEmpty {
                state.running += 1
                return nil
            }
            state.nextID += 1
            state.pending.insert(state.nextID)
            return state.nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let admitted = state.withLock { state -> Bool? in
                    if state.pending.remove(id) == nil { return false }
                    if state.running < limit && state.waiters.isEmpty {
                        state.running += 1
                        return true
                    }
                    state.waiters.append(Waiter(id: id, priority: priority, continuation: continuation))
                    return nil
                }
                if let admitted { continuation.resume(returning: admitted) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.pending.remove(id)   // not queued yet: acquire will see it gone
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    private func release() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.running -= 1
                return nil
            }
            // Highest current priority, each read once; the earliest among equals (max(by:)
            // keeps the first of equal elements).
            let priorities = state.waiters.map { $0.priority() }
            let best = priorities.indices.max { priorities[$0] < priorities[$1] } ?? 0
            return state.waiters.remove(at: best)
        }
        next?.continuation.resume(returning: true)
    }
}

