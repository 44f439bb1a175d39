import Foundation

/// What a check asks to load: a URL (nil for "no source") and an optional target size.
public struct ConformanceSource: Sendable, Hashable, CustomStringConvertible {
    public var url: URL
    /// Longest side of the output in pixels (default nil: full size). Part of the key (SOURCE-3).
    public var maxPixelSize: Int?

    public init(url: URL, maxPixelSize: Int? = nil) {
        self.url = url
        self.maxPixelSize = maxPixelSize
    }

    public var description: String { url.path + (maxPixelSize.map { "@\($0)" } ?? "") }
}

/// One loader instance with its own caches: what a check drives. All calls are on the main
/// actor, where models publish.
@MainActor
public protocol LoaderUnderTest: AnyObject {
    /// A new model (one displayed image) for `source`; it must not start loading by itself.
    func makeModel(source: ConformanceSource?) -> any ModelUnderTest
    /// Decodes performed so far by this loader instance.
    var decodeCount: Int { get }
    /// Present when the loader declares `.memoryCache`.
    var memoryCache: (any MemoryCacheProbe)? { get }
    /// Present when the loader declares `.diskCache`.
    var diskCache: (any DiskCacheProbe)? { get }
    /// Loads waiting for a network slot (required with `.priorities`; otherwise nil).
    var queuedFetchCount: Int? { get }
}

/// The view model of one displayed image.
@MainActor
public protocol ModelUnderTest: AnyObject {
    /// The current phase, read synchronously.
    var phase: ObservedPhase { get }
    /// Calls `observer` with the current phase, then with every phase published after it, in
    /// order. Called from whatever thread the loader publishes on (ORDER-1 checks it).
    func observe(_ observer: @escaping @Sendable (ObservedPhase) -> Void)
    /// The model's public asynchronous observation, if it has one: a new sequence per read that
    /// yields the current phase first, then every phase published after it, in order (ORDER-2
    /// checks it for late subscribers, terminal phases included). Default nil: the model has no
    /// such stream and ORDER-2 judges `observe(_:)` alone.
    var phases: AsyncStream<ObservedPhase>? { get }
    func load()
    func cancel()
    func retry()
    func setSource(_ source: ConformanceSource?)
    /// For loaders with `.priorities`: 0 lowest ... 4 highest (default 2).
    func setPriority(_ priority: Int)
}

extension ModelUnderTest {
    public func setPriority(_ priority: Int) {}
    public var phases: AsyncStream<ObservedPhase>? { nil }
}

/// A loader's memory cache, as the MEM rules inspect it.
@MainActor
public protocol MemoryCacheProbe: AnyObject {
    var totalCost: Int { get }
    var costLimit: Int { get }
    func contains(_ source: ConformanceSource) -> Bool
    func trim(toCost cost: Int)
}

/// A loader's disk cache, as the DISK rules inspect it. The checks read it, and open a new
/// loader instance on the same directory, as soon as a load has published its terminal phase:
/// by then a successful load's entry must be visible (an asynchronous writer must finish the
/// write first, or the adapter must wait for it before publishing).
@MainActor
public protocol DiskCacheProbe: AnyObject {
    /// Bytes held, as the cache accounts them.
    var totalSize: Int { get }
    var sizeLimit: Int { get }
    /// Complete entries held.
    var entryCount: Int { get }
    /// Overwrites the stored bytes of `url`'s entry with garbage of the same length; false
    /// when there is no entry.
    func corruptEntry(for url: URL) throws -> Bool
    /// Leaves on disk exactly what the cache's writer leaves when the process dies after writing
    /// `writtenBytes` of `bytes` for `url`, as if that happened long ago (DISK-1). The check can
    /// only be as honest as this simulation: it must mirror the real write path.
    func simulateCrashWhileStoring(_ bytes: Data, for url: URL, writtenBytes: Int) throws
}
