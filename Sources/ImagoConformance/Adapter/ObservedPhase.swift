import Crypto
import Foundation

/// Where a loader says a successful image came from (CACHE-3).
public enum ObservedOrigin: String, Sendable, Hashable, Codable {
    /// `memory`: the memory cache; `disk`: the disk cache (fresh, or confirmed by a 304);
    /// `network`: fetched for this load; `local`: not fetched at all (a file or bytes in memory).
    case memory, disk, network, local
}

/// Identifies decoded pixels without holding them: size plus SHA-256 of the packed RGBA rows.
public struct ImageFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// Columns, in pixels.
    public let width: Int
    /// Rows, in pixels.
    public let height: Int
    /// Lowercase hex SHA-256 of the tightly packed RGBA rows (width × 4 bytes each).
    public let digest: String

    /// A fingerprint from its parts (`digest`: lowercase hex SHA-256, as the other initializer
    /// makes it).
    public init(width: Int, height: Int, digest: String) {
        self.width = width
        self.height = height
        self.digest = digest
    }

    /// The fingerprint of tightly packed RGBA rows (`rgba.count == width * height * 4`).
    public init(width: Int, height: Int, rgba: some DataProtocol) {
        self.init(width: width, height: height, digest: SHA256.hash(data: rgba).map { String(format: "%02x", $0) }.joined())
    }

    /// `WIDTHxHEIGHT#` and the digest's first 8 hex digits, e.g. `64x48#1f2e3d4c`.
    public var description: String { "\(width)x\(height)#\(digest.prefix(8))" }
}

/// Why a load failed, in the categories the rules distinguish.
public enum ObservedFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// `load()` without a source (INIT-2).
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
    /// A failure in none of the rules' categories, with the adapter's description of it; a check
    /// expecting a category reports it as the wrong one.
    case other(String)

    /// The category and its detail, e.g. `httpStatus(404)`, `decoding(corrupt)`.
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
    /// Rows, in pixels.
    public let height: Int

    /// A preview of `detail` (from 1, growing with each preview of an attempt) and its size.
    public init(detail: Int, width: Int, height: Int) {
        self.detail = detail
        self.width = width
        self.height = height
    }

    /// `preview DETAIL WIDTHxHEIGHT`, e.g. `preview 2 64x48`.
    public var description: String { "preview \(detail) \(width)x\(height)" }
}

/// A phase as the loader's model published it, in the vocabulary of Docs/phase-rules.md.
public enum ObservedPhase: Sendable, Hashable, CustomStringConvertible {
    /// Nothing requested yet, or reset by a cancel or a source change (TRANS-4).
    case empty
    /// `received`/`expected` are nil when the loader reports no progress or an unknown total;
    /// `previous` is the fingerprint of an earlier source's image shown as a placeholder;
    /// `preview` the coarse image of this attempt shown so far, for loaders with
    /// `.progressivePreviews` (default nil, so three-value constructions stay valid).
    case loading(received: Int?, expected: Int?, previous: ImageFingerprint?, preview: ObservedPreview? = nil)
    /// The attempt's image, with where it came from (CACHE-3); terminal (TRANS-1).
    case success(origin: ObservedOrigin, image: ImageFingerprint)
    /// The attempt failed; terminal (TRANS-1).
    case failure(ObservedFailure)

    /// `loading` with no progress, placeholder or preview: what a loader without progress
    /// publishes, and how expected sequences write a plain `loading`.
    public static let loading = ObservedPhase.loading(received: nil, expected: nil, previous: nil)

    /// `empty`, `loading`, `success` or `failure`: the phase without its values.
    public var name: String {
        switch self {
        case .empty: "empty"
        case .loading: "loading"
        case .success: "success"
        case .failure: "failure"
        }
    }

    /// True for `success` and `failure`, the phases an attempt ends in (TRANS-1).
    public var isTerminal: Bool {
        switch self {
        case .success, .failure: true
        case .empty, .loading: false
        }
    }

    /// A `success` phase's image; nil in any other phase.
    public var image: ImageFingerprint? {
        if case .success(_, let image) = self { return image }
        return nil
    }

    /// A `success` phase's origin; nil in any other phase.
    public var origin: ObservedOrigin? {
        if case .success(let origin, _) = self { return origin }
        return nil
    }

    /// The preview a `loading` phase carries (PREVIEW-1); nil in any other phase.
    public var preview: ObservedPreview? {
        if case .loading(_, _, _, let preview) = self { return preview }
        return nil
    }

    /// A `failure` phase's category; nil in any other phase.
    public var failure: ObservedFailure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }

    /// The phase as steps and evidence print it: `empty`, `loading(512/2048)[previous]`,
    /// `success(network,64x48#1f2e3d4c)`, `failure(httpStatus(404))`.
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
