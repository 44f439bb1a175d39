import Crypto
import Foundation

/// Where a loader says a successful image came from (CACHE-3).
public enum ObservedOrigin: String, Sendable, Hashable, Codable {
    case memory, disk, network, local
}

/// Identifies decoded pixels without holding them: size plus SHA-256 of the packed RGBA rows.
public struct ImageFingerprint: Sendable, Hashable, CustomStringConvertible {
    public let width: Int
    public let height: Int
    /// Lowercase hex SHA-256 of the tightly packed RGBA rows (width × 4 bytes each).
    public let digest: String

    public init(width: Int, height: Int, digest: String) {
        self.width = width
        self.height = height
        self.digest = digest
    }

    /// The fingerprint of tightly packed RGBA rows (`rgba.count == width * height * 4`).
    public init(width: Int, height: Int, rgba: some DataProtocol) {
        self.init(width: width, height: height, digest: SHA256.hash(data: rgba).map { String(format: "%02x", $0) }.joined())
    }

    public var description: String { "\(width)x\(height)#\(digest.prefix(8))" }
}

/// Why a load failed, in the categories the rules distinguish.
public enum ObservedFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case missingSource
    /// A non-2xx status, decided at the response head (ERR-1).
    case httpStatus(Int)
    /// The body was not a decodable image (ERR-2).
    case decoding(String)
    /// A 2xx response with no body (ERR-2).
    case emptyData
    /// Connection errors, timeouts and transfers short of their Content-Length (ERR-3).
    case transport(String)
    /// A cancellation surfaced as a failure: always a violation (TRANS-4).
    case cancelled
    case other(String)

    public var description: String {
        switch self {
        case .missingSource: "missingSource"
        case .httpStatus(let code): "httpStatus(\(code))"
        case .decoding(let kind): "decoding(\(kind))"
        case .emptyData: "emptyData"
        case .transport(let message): "transport(\(message))"
        case .cancelled: "cancelled"
        case .other(let message): "other(\(message))"
        }
    }
}

/// A coarse image a loader shows inside `loading` while the rest arrives (PREVIEW-1): a
/// progressive JPEG after one of its scans, an Adam7 PNG after one of its passes. The checks
/// need its place in the sequence and its size, not its pixels.
public struct ObservedPreview: Sendable, Hashable, CustomStringConvertible {
    /// How much of the image it shows: the scan (JPEG) or pass (PNG) it was made after, from 1,
    /// or any measure the loader keeps that grows with every new preview of an attempt.
    public let detail: Int
    /// The preview's size in pixels.
    public let width: Int
    public let height: Int

    public init(detail: Int, width: Int, height: Int) {
        self.detail = detail
        self.width = width
        self.height = height
    }

    public var description: String { "preview \(detail) \(width)x\(height)" }
}

/// A phase as the loader's model published it, in the vocabulary of Docs/phase-rules.md.
public enum ObservedPhase: Sendable, Hashable, CustomStringConvertible {
    case empty
    /// `received`/`expected` are nil when the loader reports no progress or an unknown total;
    /// `previous` is the fingerprint of an earlier source's image shown as a placeholder;
    /// `preview` the coarse image of this attempt shown so far, for loaders with
    /// `.progressivePreviews` (default nil, so three-value constructions stay valid).
    case loading(received: Int?, expected: Int?, previous: ImageFingerprint?, preview: ObservedPreview? = nil)
    case success(origin: ObservedOrigin, image: ImageFingerprint)
    case failure(ObservedFailure)

    public static let loading = ObservedPhase.loading(received: nil, expected: nil, previous: nil)

    public var name: String {
        switch self {
        case .empty: "empty"
        case .loading: "loading"
        case .success: "success"
        case .failure: "failure"
        }
    }

    public var isTerminal: Bool {
        switch self {
        case .success, .failure: true
        case .empty, .loading: false
        }
    }

    public var image: ImageFingerprint? {
        if case .success(_, let image) = self { return image }
        return nil
    }

    public var origin: ObservedOrigin? {
        if case .success(let origin, _) = self { return origin }
        return nil
    }

    /// The preview a `loading` phase carries (PREVIEW-1); nil in any other phase.
    public var preview: ObservedPreview? {
        if case .loading(_, _, _, let preview) = self { return preview }
        return nil
    }

    public var failure: ObservedFailure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }

    public var description: String {
        switch self {
        case .empty: return "empty"
        case .loading(let received, let expected, let previous, let preview):
            var text = "loading"
            if let received { text += "(\(received)/\(expected.map(String.init) ?? "?"))" }
            if previous != nil { text += "[previous]" }
            if let preview { text += "[\(preview)]" }
            return text
        case .success(let origin, let image): return "success(\(origin.rawValue),\(image))"
        case .failure(let failure): return "failure(\(failure))"
        }
    }
}
