import Foundation

/// A tmux server of a test's own (its own socket, `-L`), with one detached session whose pane
/// runs a command on a real pseudo-terminal: what `imago show` draws can be captured with its
/// colours, keys can be typed into it and the window resized. `kill()` ends the server and
/// everything in it; call it on every path (`defer`).
final class TmuxSession {
    /// The tmux executable on PATH, or nil when tmux is not installed.
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("tmux") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    static var isInstalled: Bool { executable != nil }

    let socket = "imago-show-test-\(UUID().uuidString)"
    private static let target = "show"

    /// Starts the server and a `columns` × `rows` session running `command` (argv, no shell),
    /// the whole window its pane's (no status line).
    init(_ command: [String], columns: Int, rows: Int) throws {
        // One tmux invocation, in order: the option is set before the command starts.
        // -u: UTF-8 whatever the locale (a CI runner's may be C); -f /dev/null: no user config.
        try run(["start-server", ";", "set-option", "-g", "status", "off", ";",
                 "new-session", "-d", "-s", Self.target, "-x", "\(columns)", "-y", "\(rows)", "--"] + command)
    }

    /// The pane's screen: one line per row, with the SGR sequences of its colours (`-e`).
    func capture() throws -> String {
        try run(["capture-pane", "-p", "-e", "-t", Self.target])
    }

    /// Types `keys` (tmux key names: "r", "q", "C-c").
    func sendKeys(_ keys: String...) throws {
        try run(["send-keys", "-t", Self.target] + keys)
    }

    func resize(columns: Int, rows: Int) throws {
        try run(["resize-window", "-t", Self.target, "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Closes the session: its pane's terminal hangs up under the process running in it.
    func hangUp() throws {
        try run(["kill-session", "-t", Self.target])
    }

    /// A tmux format of the pane: "#{pane_dead}", "#{cursor_flag}", "#{alternate_on}"...
    func format(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", Self.target, format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Ends the server, its session and the processes in its pane. Safe to call twice.
    func kill() {
        _ = try? run(["kill-server"])
    }

    struct Failure: Error, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        let output: String
        var description: String { "tmux \(arguments.joined(separator: " ")) exited \(status): \(output)" }
    }

    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let all = ["-u", "-L", socket, "-f", "/dev/null"] + arguments
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: file) }
        let status = try Self.spawnAndWait(Self.executable!.path, all, output: file.path)
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        guard status == 0 else { throw Failure(arguments: arguments, status: status, output: text) }
        return text
    }

    /// Runs `path` with `arguments`, its output and errors into the file at `output`, and waits
    /// for it. Not `Process`: the first tmux command forks the server, and a server that inherited
    /// a descriptor of this process (Foundation watches a child's exit through one; a concurrent
    /// test's pipe) would keep it open for as long as it runs. So the child gets 0, 1 and 2 only,
    /// and a clean signal mask.
    private static func spawnAndWait(_ path: String, _ arguments: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        closeInheritedDescriptors(&actions)
        // No signal blocked and every one at its default: a test thread blocks most signals,
        // and a tmux server that inherited that mask would never see its panes' exits (SIGCHLD)
        // or a kill-server's end.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw Failure(arguments: arguments, status: -1, output: String(cString: strerror(spawned))) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(arguments: arguments, status: -1, output: "waitpid: \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import (macros).
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Adds "close every descriptor from 3 up" to `actions`: glibc's
    /// posix_spawn_file_actions_addclosefrom_np (2.34 and later; not in Swift's Glibc module),
    /// else a close for each descriptor open now.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }
}
