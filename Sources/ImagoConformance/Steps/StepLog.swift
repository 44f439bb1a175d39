import Synchronization

/// The actions one check took on the loader and the server, in order, for the evidence.
/// Sendable because some steps are recorded off the main actor: a loader wrapper's release
/// (its deinit) and a gate opened from any task.
final class StepLog: Sendable {
    private struct State {
        var steps: [String] = []
        var loaders = 0
        var models = 0
    }

    private let state = Mutex(State())

    func record(_ step: String) {
        state.withLock { $0.steps.append(step) }
    }

    var steps: [String] { state.withLock { $0.steps } }

    /// Forgets every step and numbers loaders and models from 1 again, keeping `steps` (default
    /// none) as the steps so far.
    func reset(to steps: [String] = []) {
        state.withLock { $0 = State(steps: steps) }
    }

    /// The next loader's number (1, 2, …) within the check.
    func nextLoaderNumber() -> Int {
        state.withLock { state in
            state.loaders += 1
            return state.loaders
        }
    }

    /// The next model's number (1, 2, …) within the check.
    func nextModelNumber() -> Int {
        state.withLock { state in
            state.models += 1
            return state.models
        }
    }
}
