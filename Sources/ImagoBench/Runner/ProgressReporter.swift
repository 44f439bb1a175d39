import Foundation
import Synchronization

/// Shows where a run is. On a terminal: one self-rewriting status line on stderr with the
/// scenario, samples taken and an ETA. Otherwise (CI logs, pipes): plain lines, one per
/// logged step, nothing rewritten.
public final class ProgressReporter: Sendable {
    struct State {
        var scenario = ""
        var planned = 1
        var done = 0
        var started = ContinuousClock.now
    }

    private let state = Mutex(State())
    /// Whether stderr is a terminal (decided once at start).
    public let isTerminal: Bool

    public init(isTerminal: Bool = isatty(STDERR_FILENO) != 0) {
        self.isTerminal = isTerminal
    }

    /// Starts a scenario expected to take about `plannedUnits` steps.
    public func begin(_ scenario: String, plannedUnits: Int) {
        state.withLock { $0 = State(scenario: scenario, planned: max(1, plannedUnits), done: 0, started: .now) }
        log("\(scenario): started")
    }

    /// One more step done (a sample round, a child process).
    public func advance(_ units: Int = 1) {
        let line = state.withLock { state -> String in
            state.done += units
            return Self.statusLine(state)
        }
        if isTerminal { write("\r\u{1B}[2K" + line) }
    }

    /// A step worth a line of its own (also in plain mode).
    public func log(_ message: String) {
        let scenario = state.withLock { $0.scenario }
        if isTerminal {
            write("\r\u{1B}[2K\(message)\n")
        } else {
            write((scenario.isEmpty || message.hasPrefix(scenario) ? "" : "\(scenario): ") + message + "\n")
        }
    }

    /// Ends the scenario with its elapsed time.
    public func end() {
        let (scenario, elapsed) = state.withLock { ($0.scenario, ContinuousClock.now - $0.started) }
        log("\(scenario): done in \(Self.format(seconds: elapsed.seconds))")
    }

    static func statusLine(_ state: State) -> String {
        let elapsed = (ContinuousClock.now - state.started).seconds
        let done = max(state.done, 0)
        let remaining = done == 0 ? nil : elapsed / Double(done) * Double(max(state.planned - done, 0))
        return "[\(state.scenario)] \(done)/\(state.planned) samples, ETA " + (remaining.map(format(seconds:)) ?? "?")
    }

    /// "42s", "3m05s".
    public static func format(seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole < 60 ? "\(whole)s" : String(format: "%dm%02ds", whole / 60, whole % 60)
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
