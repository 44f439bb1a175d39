import Foundation

/// Why `imago show` cannot take the terminal.
enum TerminalSessionError: Error, CustomStringConvertible {
    /// Standard input or output is not a terminal (a pipe, a file, a CI log).
    case notATerminal(stream: String)
    /// The terminal's settings could not be read or changed.
    case settings(operation: String, errno: Int32)

    var description: String {
        switch self {
        case .notATerminal(let stream):
            "imago show draws on a terminal, and its standard \(stream) is not one; "
                + "`imago load` prints the same phases as JSON lines"
        case .settings(let operation, let code):
            "cannot \(operation) the terminal's settings: \(String(cString: strerror(code)))"
        }
    }
}

/// The terminal as `imago show` uses it, and as it gives it back.
///
/// Taking it: the line discipline in raw mode (no echo, no line editing, no signals from
/// Ctrl-C: each key arrives at once as a byte), the alternate screen (the shell's screen is
/// left as it was), the cursor hidden and automatic wrapping off (a full last line does not
/// scroll the screen). `restore()` undoes each of these in reverse order and puts back the
/// exact settings found; it runs on every way out (q, Ctrl-C, SIGINT, SIGTERM, SIGHUP, an
/// error) because the command calls it from a `defer`.
///
/// Frames are written whole, one write(2) each, and only the lines that changed since the last
/// frame (from the cursor's home, never clearing first): no flicker.
@MainActor
final class TerminalSession {
    private var original: termios
    private var restored = false
    /// The lines last written, to send only what changed; empty after a resize.
    private var shown: [[ScreenCell]] = []
    private var shownSize = (columns: 0, rows: 0)

    static let enterAlternateScreen = "\u{1B}[?1049h"
    static let leaveAlternateScreen = "\u{1B}[?1049l"
    static let hideCursor = "\u{1B}[?25l"
    static let showCursor = "\u{1B}[?25h"
    static let wrapOff = "\u{1B}[?7l"
    static let wrapOn = "\u{1B}[?7h"
    static let resetStyle = "\u{1B}[0m"
    static let clearScreen = "\u{1B}[2J"

    /// Takes the terminal on standard input and output; throws when either is not a terminal.
    init() throws(TerminalSessionError) {
        if isatty(STDIN_FILENO) == 0 { throw .notATerminal(stream: "input") }
        if isatty(STDOUT_FILENO) == 0 { throw .notATerminal(stream: "output") }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { throw .settings(operation: "read", errno: errno) }
        original = settings
        var raw = Self.rawMode(from: settings)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { throw .settings(operation: "change", errno: errno) }
        writeToStandardOutput(Array((Self.enterAlternateScreen + Self.hideCursor + Self.wrapOff + Self.clearScreen).utf8))
    }

    /// `settings` with the line discipline off: bytes as typed, no echo, Ctrl-C as a byte.
    static func rawMode(from settings: termios) -> termios {
        var raw = settings
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1    // a read returns as soon as one byte is there
            characters[Int(VTIME)] = 0
        }
        return raw
    }

    /// The terminal's size in cells; 80 × 24 when it does not say.
    var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Draws `frame`: the lines that differ from the last frame, or all of them after a resize.
    func present(_ frame: ScreenBuffer) {
        guard !restored else { return }
        var out = ""
        if shownSize != (frame.columns, frame.rows) {
            out += Self.clearScreen
            shown = []
            shownSize = (frame.columns, frame.rows)
        }
        for (row, line) in frame.lines.enumerated() where row >= shown.count || shown[row] != line {
            out += "\u{1B}[\(row + 1);1H" + SGREncoding.encode(line)
        }
        shown = frame.lines
        if !out.isEmpty { writeToStandardOutput(Array(out.utf8)) }
    }

    /// Gives the terminal back as it was found. Calling it again does nothing.
    func restore() {
        guard !restored else { return }
        restored = true
        writeToStandardOutput(Array((Self.resetStyle + Self.wrapOn + Self.showCursor + Self.leaveAlternateScreen).utf8))
        _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &original)
    }
}
