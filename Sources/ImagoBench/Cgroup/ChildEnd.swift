/// How a child process ended.
public enum ChildEnd: Sendable, Equatable {
    case exited(Int32)
    /// Ended by a signal (SIGKILL from the OOM killer, a crash's SIGSEGV/SIGABRT…).
    case signalled(Int32)
    /// Outlived its timeout and was killed.
    case timedOut

    init(exitStatus: Int32?, signal: Int32?, timedOut: Bool) {
        self = timedOut ? .timedOut : signal.map(ChildEnd.signalled) ?? .exited(exitStatus ?? -1)
    }

    /// "exit 0", "signal 9", "timeout": short enough for a table cell.
    public var short: String {
        switch self {
        case .exited(let status): "exit \(status)"
        case .signalled(let signal): "signal \(signal)"
        case .timedOut: "timeout"
        }
    }

    /// "exit 0", "killed by signal 9", "killed after the timeout".
    public var description: String {
        switch self {
        case .exited(let status): "exit \(status)"
        case .signalled(let signal): "killed by signal \(signal)"
        case .timedOut: "killed after the timeout"
        }
    }
}
