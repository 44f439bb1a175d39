import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Process {
    /// Ends a child process whatever state it is in: SIGTERM, up to `grace` (default 5 s) for its
    /// own clean-up (`imago load` cancels its loads and removes its downloads), then SIGKILL;
    /// returns once it has exited (a killed process always does). For tests and the bench, which
    /// must leave no child behind however a run fails.
    public func end(grace: Duration = .seconds(5)) async {
        if isRunning { terminate() }
        let deadline = ContinuousClock.now + grace
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if isRunning { kill(processIdentifier, SIGKILL) }
        while isRunning { try? await Task.sleep(for: .milliseconds(20)) }
    }
}
