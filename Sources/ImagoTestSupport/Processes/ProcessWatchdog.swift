import Foundation
import Synchronization

/// Kills a child process (SIGKILL, by its own pid) if it is still running after a deadline, so
/// a test that waits on a hung child's output or exit ends instead of hanging the suite. It
/// never fires after ``disarm()``: a finished process's pid, which the system may hand to
/// another process, is never signalled.
public final class ProcessWatchdog: Sendable {
    private enum State { case armed, fired, disarmed }
    private let state = Mutex(State.armed)

    /// Arms a watchdog for `pid` that fires after `timeout`.
    public init(pid: pid_t, timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18) { [self] in
            state.withLock { state in
                guard state == .armed else { return }
                state = .fired
                kill(pid, SIGKILL)
            }
        }
    }

    /// Stops it from firing (call once the process has exited); returns whether it had fired.
    @discardableResult
    public func disarm() -> Bool {
        state.withLock { state in
            defer { if state == .armed { state = .disarmed } }
            return state == .fired
        }
    }
}

extension Process {
    /// Kills (SIGKILL) and reaps the child if it is still running: what a test-owned child's
    /// owner does when its test ended early, so no child outlives its test.
    func killAndReapIfRunning() {
        guard isRunning else { return }
        kill(processIdentifier, SIGKILL)
        waitUntilExit()
    }
}
