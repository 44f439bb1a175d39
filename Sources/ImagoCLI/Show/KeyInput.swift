import Foundation

/// The keys `imago show` acts on.
enum Key: Hashable, Sendable {
    /// `q` or `Q`.
    case quit
    /// `r` or `R`: retry the failed tiles.
    case retry
    /// Ctrl-C: in raw mode the terminal sends it as the byte 0x03 instead of raising SIGINT.
    case interrupt
}

/// Bytes typed at the terminal into keys. Escape sequences (arrows, function keys, a terminal's
/// replies) are skipped whole, so the `q` or `r` inside one is never taken for a key press;
/// a sequence split across two reads is still recognised.
struct KeyDecoder {
    private enum State {
        case ground
        /// After ESC.
        case escape
        /// After ESC [ : parameters until a final byte (0x40...0x7E).
        case controlSequence
        /// After ESC O (SS3): one more byte.
        case singleShift
    }

    private var state = State.ground

    /// The keys in `bytes`, in order; anything else is ignored.
    mutating func keys(from bytes: some Sequence<UInt8>) -> [Key] {
        var keys: [Key] = []
        for byte in bytes {
            switch state {
            case .ground:
                switch byte {
                case 0x1B: state = .escape
                case 0x03: keys.append(.interrupt)
                case UInt8(ascii: "q"), UInt8(ascii: "Q"): keys.append(.quit)
                case UInt8(ascii: "r"), UInt8(ascii: "R"): keys.append(.retry)
                default: break
                }
            case .escape:
                switch byte {
                case UInt8(ascii: "["): state = .controlSequence
                case UInt8(ascii: "O"): state = .singleShift
                case 0x1B: state = .escape   // ESC ESC: the first was a lone Escape key
                default: state = .ground     // Alt+key: ignored
                }
            case .controlSequence:
                if (0x40...0x7E).contains(byte) { state = .ground }
            case .singleShift:
                state = .ground
            }
        }
        return keys
    }
}

/// Reads standard input (a terminal in raw mode) as it becomes readable, on a dispatch source,
/// and hands each key to `onKey`; `onEnd` when input ends (the terminal went away).
/// `@unchecked Sendable`: the source is set once in `init` and afterwards only cancelled, which
/// Dispatch allows from any thread.
final class KeyReader: @unchecked Sendable {
    private let source: any DispatchSourceRead

    /// Starts reading at once.
    init(onKey: @escaping @Sendable (Key) -> Void, onEnd: @escaping @Sendable () -> Void) {
        let source = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO,
                                                   queue: DispatchQueue(label: "imago.show.keys"))
        let decoder = DecoderState()
        // The handler holds the source until it is cancelled (by `stop()` or at the end of
        // input), when Dispatch lets go of the handler.
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count > 0 {
                for key in decoder.value.keys(from: buffer[..<count]) { onKey(key) }
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                source.cancel()
                onEnd()
            }
        }
        source.resume()
        self.source = source
    }

    deinit { source.cancel() }

    /// Stops reading (standard input stays open). Calling it again does nothing.
    func stop() { source.cancel() }

    /// The decoder, mutated only on the source's serial queue.
    private final class DecoderState: @unchecked Sendable {
        var value = KeyDecoder()
    }
}
