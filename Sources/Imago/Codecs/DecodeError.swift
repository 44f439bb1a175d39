/// Why a decode failed. Every malformed input ends in one of these; none crashes.
public enum DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Zero bytes of input.
    case empty
    /// Not PNG, JPEG or WebP; the associated value names what it looks like ("gif", "unknown").
    case unsupportedFormat(String)
    /// The codec rejected the data; `message` is the codec's own explanation.
    case corrupt(format: ImageFormat, message: String)
    /// The data ended before the image did.
    case truncated(format: ImageFormat)
    /// The header's dimensions exceed `DecodeOptions.pixelLimit`; nothing was allocated.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// Task cancellation or a `DecodeCancellation` stopped the decode between row batches.
    case cancelled
    /// The pixel memory could not be allocated.
    case outOfMemory(byteCount: Int)
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The decode would need `requiredBytes` (output plus working memory, from the header) and
    /// the process may use only `limitBytes` in all (its effective memory limit): refused before
    /// anything was allocated, instead of an out-of-memory kill.
    case exceedsMemoryLimit(requiredBytes: Int, limitBytes: Int)

    /// A stable one-word name: the manifest's and the CLI's vocabulary.
    public var kind: String {
        switch self {
        case .empty: "empty"
        case .unsupportedFormat: "unsupportedFormat"
        case .corrupt: "corrupt"
        case .truncated: "truncated"
        case .tooLarge: "tooLarge"
        case .cancelled: "cancelled"
        case .outOfMemory: "outOfMemory"
        case .unreadable: "unreadable"
        case .exceedsMemoryLimit: "exceedsMemoryLimit"
        }
    }

    /// One line for a person: the case and its details, e.g. "image too large: 20000x20000
    /// exceeds the 100000000-pixel limit" (``kind`` is the machine-readable name).
    public var description: String {
        switch self {
        case .empty: "empty input"
        case .unsupportedFormat(let name): "unsupported format (\(name))"
        case .corrupt(let format, let message): "corrupt \(format.rawValue): \(message)"
        case .truncated(let format): "truncated \(format.rawValue) data"
        case .tooLarge(let w, let h, let limit): "image too large: \(w)x\(h) exceeds the \(limit)-pixel limit"
        case .cancelled: "decode cancelled"
        case .outOfMemory(let count): "cannot allocate \(count) bytes of pixels"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .exceedsMemoryLimit(let required, let limit):
            "decoding needs \(required) bytes, more than the process's \(limit)-byte memory limit"
        }
    }
}
