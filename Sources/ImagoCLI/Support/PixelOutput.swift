import Foundation
import Imago

/// `--output FILE`: the image's tightly packed RGBA rows, written with POSIX calls so a failure
/// names the system's reason ("No such file or directory") instead of a Foundation error dump,
/// and a partly written file is removed rather than left looking complete.
enum PixelOutput {
    /// Exit status of a command whose --output could not be written (sysexits' EX_CANTCREAT).
    static let failureStatus: Int32 = 73

    struct WriteError: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot write \(path): \(reason)" }
    }

    static func write(_ pixels: PixelBuffer, to path: String) throws(WriteError) {
        let bytes = pixels.packedBytes()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw WriteError(path: path, reason: String(cString: strerror(errno))) }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { failure = written < 0 ? errno : EIO; return }
                offset += written
            }
        }
        if close(descriptor) != 0 && failure == 0 { failure = errno }
        if failure != 0 {
            unlink(path)
            throw WriteError(path: path, reason: String(cString: strerror(failure)))
        }
    }
}
