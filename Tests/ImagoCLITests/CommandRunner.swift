import Foundation
import ImagoTestSupport

/// Runs the built `imago` executable (test support's child-process runner, with its bounded
/// wait) and captures its output.
enum CommandRunner {
    /// The `imago` executable beside this test bundle (SwiftPM builds it: this target depends on it).
    static var executable: URL { BuiltProducts.executable(named: "imago") }

    /// Runs `imago arguments` to its end, with `environment` added to this process's own.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> FinishedProcess {
        try await ChildProcessRunner.run(executable, arguments, environment: environment)
    }
}

/// A running `imago` whose standard output is read line by line while it runs, so a test can
/// act (send a signal) at a precise point of its output.
final class RunningCommand {
    private let running: LineReadingProcess

    /// `temporaryDirectory`: the child's TMPDIR (default: inherited).
    init(_ arguments: [String], temporaryDirectory: URL? = nil) throws {
        running = try LineReadingProcess(CommandRunner.executable, arguments,
                                         environment: temporaryDirectory.map { ["TMPDIR": $0.path] } ?? [:])
    }

    /// Every whole line read so far, in order.
    var lines: [String] { running.lines }

    /// Reads lines until one satisfies `condition` (true) or the output ends (false).
    func readLines(until condition: (String) -> Bool) -> Bool { running.readLines(until: condition) }

    /// Sends `signal`, reads the rest of the output and waits for the exit.
    func interrupt(with signal: Int32) -> (status: Int32, stderr: String) { running.interrupt(with: signal) }
}
