/// Where a successful image came from, so a UI can animate network loads only.
public enum ImageOrigin: String, Sendable, Hashable, Codable {
    case memory, disk, network, local
}

/// A loaded image.
public struct ImageResponse: Sendable {
    public let image: DecodedImage
    public let origin: ImageOrigin
    /// What the disk cache did for this load of a URL: served a fresh entry, revalidated one,
    /// stored or replaced the response, or did not store it (and why). Nil for memory hits,
    /// local sources, and pipelines without a disk cache. Default nil.
    public let diskCache: DiskCacheOutcome?
    public var pixels: PixelBuffer { image.pixels }

    public init(image: DecodedImage, origin: ImageOrigin, diskCache: DiskCacheOutcome? = nil) {
        self.image = image
        self.origin = origin
        self.diskCache = diskCache
    }

    /// The same response with `diskCache` set.
    func reporting(_ diskCache: DiskCacheOutcome?) -> ImageResponse {
        ImageResponse(image: image, origin: origin, diskCache: diskCache)
    }
}

/// Why a load failed. Cancellation is a separate case so nobody shows it as an error.
public enum ImageLoadingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request had no source (a nil URL).
    case missingSource
    case fetch(FetchError)
    case decoding(DecodeError)
    /// A custom provider threw; its description.
    case provider(String)
    case cancelled

    /// `httpStatus(404)`, `emptyData`, `decoding(truncated)`...: the CLI's vocabulary.
    public var description: String {
        switch self {
        case .missingSource: "missingSource"
        case .fetch(let error): error.description
        case .decoding(.empty): "emptyData"
        case .decoding(let error): "decoding(\(error.kind))"
        case .provider(let message): "provider(\(message))"
        case .cancelled: "cancelled"
        }
    }

    /// The whole explanation, for people: the codec's message, the unreadable file's path and
    /// reason, the wait a server asked for, why a scheme is refused. `description` stays the short,
    /// stable vocabulary scripts match on.
    public var detail: String {
        switch self {
        case .decoding(let error): "\(description): \(error.description)"
        case .fetch(let error): error.detail
        default: description
        }
    }

    public var isCancellation: Bool {
        self == .cancelled || self == .fetch(.cancelled) || self == .decoding(.cancelled)
    }
}
