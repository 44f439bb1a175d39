import Foundation
import ImagoBench

/// A child process run to its end: how it ended and everything it wrote.
public struct FinishedProcess: Sendable {
    /// The exit status; for a process a signal ended, 128 + the signal, as a shell reports it.
    public let status: Int32
    /// The signal that ended the process, or nil when it exited.
    public let signal: Int32?
    /// It outlived the run's timeout and was killed.
    public let timedOut: Bool
    /// Everything it wrote to standard output, as written.
    public let output: Data
    /// Everything it wrote to standard error, as written.
    public let errorOutput: Data

    /// Standard output as UTF-8 text.
    public var stdout: String { String(decoding: output, as: UTF8.self) }
    /// Standard error as UTF-8 text.
    public var stderr: String { String(decoding: errorOutput, as: UTF8.self) }
}

/// Runs a child process to its end with a bounded wait: the bench's ``CapturedRun`` (both
/// outputs drained at once, so a chatty child cannot block on a full pipe; killed by its own
/// pid after the timeout, so a hung child fails the test instead of hanging it).
public enum ChildProcessRunner {
    /// How long a child may run before it is killed: 5 minutes (the slowest, `imago conform`
    /// over every rule, takes seconds).
    public static let defaultTimeout: Duration = .seconds(300)

    /// Runs `executable arguments`, with `environment` added to this process's own (default
    /// nothing added), and returns how it ended. The wait is on a thread of its own
    /// (`onOwnThread`), never on one of the cooperative pool's.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           timeout: Duration = defaultTimeout) async throws -> FinishedProcess {
        try await onOwnThread { try runBlocking(executable, arguments, environment: environment, timeout: timeout) }
    }

    /// ``run(_:_:environment:timeout:)`` on the calling thread, for code that cannot await (a
    /// static initializer); it holds the thread until the child ends.
    public static func runBlocking(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                                   timeout: Duration = defaultTimeout) throws -> FinishedProcess {
        let merged = environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let ending = try CapturedRun.run(executable.path, arguments, timeout: timeout, environment: merged)
        return FinishedProcess(status: ending.exitStatus ?? 128 + (ending.signal ?? 0), signal: ending.signal,
                               timedOut: ending.timedOut, output: ending.standardOutput, errorOutput: ending.standardError)
    }
}
