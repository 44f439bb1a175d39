import Foundation
import Synchronization

/// Runs one process to its end and keeps everything it wrote, however it ended: unlike
/// `ChildProcess.run`, a non-zero exit or a kill is a result here, not an error, because a
/// workload killed by the OOM killer is exactly what the pressure bench wants to see.
public enum CapturedRun {
    public struct Ending: Sendable {
        /// The exit status, or nil when a signal ended the process.
        public let exitStatus: Int32?
        /// The signal that ended the process, or nil when it exited.
        public let signal: Int32?
        /// The process outlived its timeout and was killed with SIGKILL.
        public let timedOut: Bool
        public let standardOutput: Data
        public let standardError: Data

        var end: ChildEnd { ChildEnd(exitStatus: exitStatus, signal: signal, timedOut: timedOut) }
    }

    /// Runs `executable` with `arguments` (and `environment`, default: this process's); after
    /// `timeout` the process is killed (by its own pid, never by name), so a hung workload
    /// cannot hang the bench.
    public static func run(_ executable: String, _ arguments: [String], timeout: Duration,
                           environment: [String: String]? = nil) throws -> Ending {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let pid = process.processIdentifier
        let watchdog = Watchdog()
        let (seconds, attoseconds) = timeout.components
        DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18) {
            watchdog.fire { kill(pid, SIGKILL) }
        }
        // Drain stderr on its own thread so a chatty child cannot block on a full pipe.
        let errorData = PipeDrain(errors.fileHandleForReading)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let timedOut = watchdog.disarm()
        let signalled = process.terminationReason == .uncaughtSignal
        return Ending(exitStatus: signalled ? nil : process.terminationStatus,
                      signal: signalled ? process.terminationStatus : nil, timedOut: timedOut,
                      standardOutput: outputData, standardError: errorData.data)
    }
}

/// Fires at most once, and never after it was disarmed (so a finished process's pid, which
/// the system may hand to another process, is never signalled).
private final class Watchdog: Sendable {
    private enum State { case armed, fired, disarmed }
    private let state = Mutex(State.armed)

    func fire(_ action: () -> Void) {
        state.withLock { state in
            guard state == .armed else { return }
            state = .fired
            action()
        }
    }

    /// Returns whether it had fired.
    func disarm() -> Bool {
        state.withLock { state in
            defer { if state == .armed { state = .disarmed } }
            return state == .fired
        }
    }
}
