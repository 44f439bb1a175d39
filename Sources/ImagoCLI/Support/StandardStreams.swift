import Foundation

/// Writes one line to standard output with a single write(2), unbuffered: a reader on a pipe
/// sees each line as soon as it is printed, lines from concurrent loads never interleave, and
/// nothing printed is lost when the process exits on a signal.
func printLine(_ text: String) {
    writeAll(Array((text + "\n").utf8), to: STDOUT_FILENO)
}

/// Writes one line to standard error (diagnostics never go to stdout, which carries JSON), the
/// same way.
func printError(_ message: String) {
    writeAll(Array((message + "\n").utf8), to: STDERR_FILENO)
}

/// Writes `bytes` to standard output unbuffered (a terminal's frames).
func writeToStandardOutput(_ bytes: [UInt8]) {
    writeAll(bytes, to: STDOUT_FILENO)
}

/// Writes all of `bytes` to `descriptor` (retrying short writes and EINTR), or as many as it
/// takes until the descriptor fails: a closed pipe (EPIPE) or a terminal that hung up (EIO) can
/// be told nothing more, and that is not worth a crash (FileHandle's write traps on it).
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
