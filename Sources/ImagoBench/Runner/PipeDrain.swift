import Foundation

/// Reads a pipe to its end on a thread of its own, so a chatty child cannot block on a full
/// pipe while the parent reads another one or waits for it.
final class PipeDrain: @unchecked Sendable {   // `read` is written once, before `done` is signalled
    private var read = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            read = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Everything the pipe delivered; waits for its end.
    var data: Data {
        done.wait()
        return read
    }

    /// The same as trimmed text.
    var text: String {
        String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
