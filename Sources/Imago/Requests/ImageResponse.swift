/// Where a successful image came from, so a UI can animate network loads only.
public enum ImageOrigin: String, Sendable, Hashable, Codable {
    /// `memory`: the memory cache (CACHE-1's synchronous hit); `disk`: a disk-cache entry, fresh or
    /// confirmed by a 304 (CACHE-2), or stale where the server allowed it (RFC 5861); `network`: bytes fetched for this load; `local`: a file, bytes
    /// or pixels in memory, or a custom source's image.
    case memory, disk, network, local
}

/// A loaded image.
public struct ImageResponse: Sendable {
    /// The decoded pixels and the metadata of the source they came from.
    public let image: DecodedImage
    /// Where the image came from (CACHE-3).
    public let origin: ImageOrigin
    /// What the disk cache did for this load of a URL: served a fresh entry, revalidated one,
    /// stored or replaced the response, or did not store it (and why). Nil for memory hits,
    /// local sources, and pipelines without a disk cache. Default nil.
    public let diskCache: DiskCacheOutcome?
    /// The decoded pixels, `image.pixels`.
    public var pixels: PixelBuffer { image.pixels }

    /// A response as the pipeline makes it; `diskCache` defaults to nil (no disk-cache outcome).
    public init(image: DecodedImage, origin: ImageOrigin, diskCache: DiskCacheOutcome? = nil) {
        self.image = image
        self.origin = origin
        self.diskCache = diskCache
    }

    /// A stale disk entry served it, as the server allowed (`stale-while-revalidate`,
    /// `stale-if-error`).
    var isStale: Bool { diskCache == .staleRevalidating || diskCache == .staleIfError }

    /// The same response with `diskCache` set.
    func reporting(_ diskCache: DiskCacheOutcome?) -> ImageResponse {
        ImageResponse(image: image, origin: origin, diskCache: diskCache)
    }
}

/// Why a load failed. Cancellation is a separate case so nobody shows it as an error.
public enum ImageLoadingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request had no source (a nil URL).
    case missingSource
    /// The fetch failed, after every retry the pipeline's `RetryPolicy` allowed for a transient
    /// error (RETRY-1): a non-2xx status (ERR-1), a broken, truncated or timed-out transfer
    /// (ERR-3).
    case fetch(FetchError)
    /// The bytes arrived but did not decode (ERR-2); an empty body reads as `emptyData`.
    case decoding(DecodeError)
    /// A custom provider threw; its description.
    case provider(String)
    /// The load stopped because it was cancelled (the model's `cancel()`, a source change, the
    /// calling task, or every subscriber of shared work leaving); the model never publishes it as a
    /// failure (TRANS-4).
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

    /// True for every way a cancellation is reported: `.cancelled`, `.fetch(.cancelled)` and
    /// `.decoding(.cancelled)`. A stop, not an error to show.
    public var isCancellation: Bool {
        self == .cancelled || self == .fetch(.cancelled) || self == .decoding(.cancelled)
    }
}
