import Foundation

/// Runs a command in a tmux pane through a shell that records the terminal's settings
/// (`stty -g`) before and after it and its exit status, then stays: the pane lives on, so its
/// screen state (alternate screen, cursor, wrapping) after the command can be asked about.
/// (A dead pane would not do: tmux hides the cursor of a pane whose process has exited.)
final class ExitRecorder {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-show-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The pane's argv: the shell, then `command` and its arguments.
    func wrapping(_ command: [String]) -> [String] {
        let script = #"dir=$1; shift; stty -g > "$dir/before"; "$@"; echo $? > "$dir/status"; stty -g > "$dir/after"; : > "$dir/done"; exec sleep 600"#
        return ["/bin/sh", "-c", script, "sh", directory.path] + command
    }

    /// The pane's argv for a command whose terminal is made to go away: the shell ignores the
    /// hang-up (so it lives to record the status), gives the command a TMPDIR of its own
    /// (`temporaryDirectory`, to see that nothing is left there) and does not stay.
    func wrappingThroughHangUp(_ command: [String]) -> [String] {
        let script = #"dir=$1; shift; trap "" HUP; TMPDIR="$dir/tmp" "$@"; echo $? > "$dir/status"; : > "$dir/done""#
        return ["/bin/sh", "-c", script, "sh", directory.path] + command
    }

    /// The command's TMPDIR under `wrappingThroughHangUp`.
    var temporaryDirectory: URL { directory.appendingPathComponent("tmp") }

    /// The command's exit status once it has exited; nil while it runs.
    func status() throws -> Int32? {
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("done").path) else { return nil }
        let text = try String(contentsOf: directory.appendingPathComponent("status"), encoding: .utf8)
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The command's exit status and whether the terminal's settings are as before, once it has
    /// exited; nil while it runs.
    func outcome() throws -> (status: Int32, settingsRestored: Bool)? {
        // "done" is written after the rest.
        guard let status = try status() else { return nil }
        func read(_ name: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }
        return (status, try read("before") == read("after"))
    }
}
