import Synchronization

/// The background revalidations a pipeline has running: at most one per source (a second
/// stale use of the source while one runs starts none) and at most `maxRunning` in all (past
/// that the stale entry still serves; its revalidation is left to a later load). Each is a
/// fetch under the pipeline's network limit at the lowest priority, so it never holds up a
/// load that waits for the network. Cancelled all at once by `cancelAll()`, and by the
/// pipeline's end.
final class BackgroundRevalidations: Sendable {
    /// Revalidations running at once, at most: 16 (bounded, so a screen of stale thumbnails
    /// cannot queue an unbounded backlog of low-priority fetches).
    static let maxRunning = 16

    private struct State {
        var running: [String: Task<Void, Never>] = [:]
        /// Ended since the last `waitForAll()`, in the order they ended.
        var ended: [BackgroundRevalidation] = []
    }

    private let state = Mutex(State())

    /// Revalidations running now.
    var runningCount: Int { state.withLock { $0.running.count } }

    /// Starts `work` for `source` unless one runs for it already or `maxRunning` do; whether it
    /// started.
    @discardableResult
    func start(_ source: String, _ work: @escaping @Sendable () async -> BackgroundRevalidation) -> Bool {
        state.withLock { state in
            guard state.running[source] == nil, state.running.count < Self.maxRunning else { return false }
            // The task's end takes the lock, so it cannot record itself before it is registered.
            state.running[source] = Task(priority: .background) { [self] in
                let result = await work()
                self.state.withLock { state in
                    state.running[source] = nil
                    state.ended.append(result)
                }
            }
            return true
        }
    }

    /// Waits until none runs (those started meanwhile included), then returns every one that
    /// ended since the last call. Cancelling the waiting task cancels them all.
    func waitForAll() async -> [BackgroundRevalidation] {
        await withTaskCancellationHandler {
            while let next = state.withLock({ $0.running.values.first }) {
                if Task.isCancelled { cancelAll() }   // one started after the cancel
                await next.value
            }
        } onCancel: {
            cancelAll()
        }
        return state.withLock { state in
            defer { state.ended.removeAll() }
            return state.ended
        }
    }

    /// Cancels every running revalidation: each ends at once with `.cancelled`, sending no more
    /// requests and leaving its stale entry as it was.
    func cancelAll() {
        for task in state.withLock({ Array($0.running.values) }) { task.cancel() }
    }
}
