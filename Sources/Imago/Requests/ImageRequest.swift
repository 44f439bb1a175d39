/// How urgent a request is. Shared work runs at the highest priority of its live subscribers.
public enum ImageRequestPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Five levels, lowest first (raw values 0...4): a request's default is `.normal`, and
    /// `.veryLow` is where `onDisappear()` puts a load with `DisappearBehavior.lowerPriority`.
    case veryLow = 0, low, normal, high, veryHigh
    /// Orders by urgency: `veryLow < low < normal < high < veryHigh`.
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// Which caches a request may read and write.
public enum ImageCachePolicy: Sendable, Hashable {
    /// Memory, then disk, then network; results stored in both (default).
    case useCaches
    /// Skip reading the caches; fetch again and store the result.
    case reload
    /// Read and write only the memory cache.
    case memoryOnly
    /// Read and write only the disk cache.
    case diskOnly

    var readsMemory: Bool { self == .useCaches || self == .memoryOnly }
    var readsDisk: Bool { self == .useCaches || self == .diskOnly }
    var writesMemory: Bool { self != .diskOnly }
    var writesDisk: Bool { self != .memoryOnly }
}

/// A request for an image: the source, how to decode it, how urgently, and which caches apply.
public struct ImageRequest: Sendable, Hashable {
    /// Where the image comes from; its ``ImageSource/identity`` is the source part of ``key``.
    public var source: ImageSource
    /// Target size, orientation, pixel limit. Part of the key.
    public var options: DecodeOptions
    /// Default `.normal`.
    public var priority: ImageRequestPriority
    /// Default `.useCaches`.
    public var cachePolicy: ImageCachePolicy
    /// Overrides the pipeline's fetch strategy for this request (default nil: the pipeline's).
    public var fetchStrategy: FetchStrategy?

    /// A request for `source` with the defaults: full-size decode options, `.normal` priority,
    /// `.useCaches`, and the pipeline's fetch strategy.
    public init(source: ImageSource, options: DecodeOptions = DecodeOptions(),
                priority: ImageRequestPriority = .normal, cachePolicy: ImageCachePolicy = .useCaches,
                fetchStrategy: FetchStrategy? = nil) {
        self.source = source
        self.options = options
        self.priority = priority
        self.cachePolicy = cachePolicy
        self.fetchStrategy = fetchStrategy
    }

    /// Everything that changes the pixels: source identity plus decode options. Keys the memory
    /// cache and the decode stage's coalescing.
    public var key: ImageRequestKey {
        ImageRequestKey(source: source.identity, options: options)
    }
}

/// The identity of a request's pixels.
public struct ImageRequestKey: Sendable, Hashable, CustomStringConvertible {
    /// The source's identity: keys the disk cache (original bytes) and fetch coalescing.
    public let source: String
    /// The decode options; every one changes the pixels, so requests that differ in any have
    /// different keys (SOURCE-3).
    public let options: DecodeOptions

    /// The key of a request for the source whose `ImageSource.identity` is `source`, decoded with
    /// `options` (what `ImageRequest.key` makes): for an app's own `ImageMemoryCaching` that
    /// needs to name an entry it was not handed.
    public init(source: String, options: DecodeOptions) {
        self.source = source
        self.options = options
    }

    /// The source identity, then the options that differ from the defaults, `|`-separated, e.g.
    /// `url:https://example.com/a.jpg|max=256|oriented`: for logs and diagnostics.
    public var description: String {
        var parts = [source]
        if let size = options.maxPixelSize { parts.append("max=\(size)") }
        if let box = options.targetSize { parts.append("box=\(box)") }
        if options.applyOrientation { parts.append("oriented") }
        if options.pixelLimit != DecodeOptions.defaultPixelLimit { parts.append("limit=\(options.pixelLimit)") }
        return parts.joined(separator: "|")
    }
}
