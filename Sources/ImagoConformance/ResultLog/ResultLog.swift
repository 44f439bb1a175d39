import Foundation
import Synchronization

/// A results log: the runner appends a JSON line (`ResultLogEntry`) before and after every
/// check as it goes, so when a loader kills the process mid-run (a fatal error inside
/// FoundationNetworking, say) everything before the crash is on disk, and
/// `ResultLog.report(from:)` rebuilds the report with the check that was running as `crashed`.
///
/// Each line is written with a single write(2) on a descriptor opened with `O_APPEND`: the
/// kernel has it in the file as soon as the call returns, whatever happens to the process next
/// (no buffer in user space to lose), and processes appending to one log never interleave
/// within a line.
public final class ResultLog: Sendable {
    /// The file the lines are appended to, as given to `init`.
    public let url: URL
    private let descriptor: Mutex<Int32?>

    /// Opens (creating it if needed) the log at `url`. `append` (default false) keeps what the
    /// file holds and adds to it; otherwise the file is emptied first.
    public init(url: URL, append: Bool = false) throws {
        self.url = url
        let flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (append ? 0 : O_TRUNC)
        let fd = open(url.path, flags, 0o644)
        guard fd >= 0 else { throw ResultLogError.open(url.path, errno: errno) }
        descriptor = Mutex(fd)
    }

    deinit { close() }

    /// Appends `entry` as one line with one write(2).
    public func append(_ entry: ResultLogEntry) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // JSONEncoder escapes newlines inside strings, so the encoded object is one line.
        let line = try encoder.encode(entry) + Data("\n".utf8)
        try descriptor.withLock { fd in
            guard let fd else { throw ResultLogError.closed(url.path) }
            let written = line.withUnsafeBytes { bytes -> Int in
                var result: Int
                repeat { result = write(fd, bytes.baseAddress, bytes.count) } while result < 0 && errno == EINTR
                return result
            }
            // A short write to a regular file means the disk is full: a torn line, which the
            // reader skips only when it is the file's last; say so instead of writing on.
            guard written == line.count else { throw ResultLogError.write(url.path, errno: written < 0 ? errno : 0) }
        }
    }

    /// Closes the file (also done when the log is released); appending afterwards throws.
    public func close() {
        descriptor.withLock { fd in
            if let open = fd { closeDescriptor(open) }
            fd = nil
        }
    }
}

/// `close(2)`, out of reach of `ResultLog.close()`'s name.
private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

/// Why a results log could not be opened, written or read; the message names the file.
public enum ResultLogError: Error, CustomStringConvertible {
    /// The file could not be opened (its path and `errno`).
    case open(String, errno: Int32)
    /// A line could not be written whole (its path, and `errno`; 0 for a short write, which
    /// means the disk is full).
    case write(String, errno: Int32)
    /// `append` after ``ResultLog/close()`` (its path).
    case closed(String)
    /// A line that is not a `ResultLogEntry`, other than a torn last line (1-based line number).
    case malformedLine(String, line: Int)

    /// One line naming the file and what went wrong, with the system's message for `errno`.
    public var description: String {
        switch self {
        case .open(let path, let code): "cannot open results log \(path): \(String(cString: strerror(code)))"
        case .write(let path, let code): "short write to results log \(path)" + (code == 0 ? "" : ": \(String(cString: strerror(code)))")
        case .closed(let path): "results log \(path) is closed"
        case .malformedLine(let path, let line): "results log \(path): line \(line) is not a result log entry"
        }
    }
}
