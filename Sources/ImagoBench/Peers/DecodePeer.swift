/// An image family as the peers see it: the part of a bench input's kind before the dash
/// ("jpeg-progressive" → `.jpeg`).
public enum PeerFormat: String, CaseIterable, Sendable {
    /// JPEG (baseline and progressive).
    case jpeg
    /// PNG.
    case png
    /// WebP (lossy and lossless).
    case webp

    /// The family of a bench input kind such as "png-rgb8"; nil for a kind of no known family.
    public init?(kind: String) {
        guard let family = kind.split(separator: "-").first.map(String.init) else { return nil }
        self.init(rawValue: family)
    }
}

/// How a peer makes a 256 px thumbnail of one format.
public enum PeerThumbnailMethod: String, Sendable {
    /// The codec scales while decoding (JPEG DCT scaling, libwebp's scaled decode).
    case downsampledDecode = "downsampled-decode"
    /// A full-size decode, then a resize.
    case fullDecodeResize = "full-decode+resize"
}

/// Another library the decode and thumbnail scenarios compare Imago with, run as a Python
/// snippet in an interpreter of its own (one per peer, so no library's threads, caches or
/// allocator state touch another's).
///
/// Every snippet reads the file itself (the read is part of the time, as it is for Imago's
/// cold process), produces RGBA in memory, and runs on one thread.
public struct DecodePeer: Sendable {
    /// The `decoder` parameter of its result rows, e.g. "libvips".
    public let name: String
    /// The name the report prints, e.g. "OpenCV".
    public let title: String
    /// The Python module that must be importable, e.g. "cv2"; its absence skips the peer's rows.
    public let module: String
    /// A Python expression giving the library's version once `setup` has run.
    public let versionExpression: String
    /// The formats it decodes (it gets no rows for the others).
    public let formats: Set<PeerFormat>
    /// Python run once per interpreter before any timing: imports and the single-thread settings.
    public let setup: String
    /// The body of `work(path)`: decode the file at `path` to RGBA.
    public let decode: String
    /// The body of `thumbnail(path)`: a thumbnail whose longest side is 256 px (nil: none).
    public let thumbnail: String?
    /// Per format, how `thumbnail` gets there (formats missing here get no thumbnail rows).
    public let thumbnailMethods: [PeerFormat: PeerThumbnailMethod]
    /// Environment the interpreter starts with, e.g. libvips' worker count (default none).
    public let environment: [String: String]
    /// What the report should know about how the snippet gets to RGBA or to a thumbnail.
    public let note: String

    /// Whether the peer decodes a bench input of this kind (e.g. "jpeg-progressive").
    public func decodes(kind: String) -> Bool {
        PeerFormat(kind: kind).map(formats.contains) ?? false
    }

    /// How the peer makes a thumbnail of this input kind, or nil when it makes none.
    public func thumbnailMethod(kind: String) -> PeerThumbnailMethod? {
        guard thumbnail != nil, let format = PeerFormat(kind: kind) else { return nil }
        return thumbnailMethods[format]
    }
}

/// What the peers' snippets are asked to do.
public enum PeerTask: String, Sendable {
    /// A full decode to RGBA.
    case decode
    /// A 256 px thumbnail (longest side).
    case thumbnail
}
