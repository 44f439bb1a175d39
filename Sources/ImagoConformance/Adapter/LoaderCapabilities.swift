/// What a loader declares it has. Rules that need a capability the loader lacks are reported
/// "not applicable" naming it, never passed by default.
public struct LoaderCapabilities: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A memory cache of decoded images, inspectable through `MemoryCacheProbe` (CACHE-1, MEM).
    public static let memoryCache = LoaderCapabilities(rawValue: 1 << 0)
    /// A disk cache of original bytes, inspectable through `DiskCacheProbe` (CACHE-2, CACHE-4, DISK).
    public static let diskCache = LoaderCapabilities(rawValue: 1 << 1)
    /// Automatic retries of transient failures, honouring `LoaderContext.maxRetries` (RETRY-1, RETRY-2).
    public static let retries = LoaderCapabilities(rawValue: 1 << 2)
    /// Back-off waits on `LoaderContext.clock` (RETRY-2's cancel during back-off).
    public static let injectableClock = LoaderCapabilities(rawValue: 1 << 3)
    /// Byte progress inside `loading` (PROGRESS-1).
    public static let progress = LoaderCapabilities(rawValue: 1 << 4)
    /// AsyncImage's profile: `load()` without a source stays `empty` instead of failing (INIT-2).
    public static let staysEmptyWithoutSource = LoaderCapabilities(rawValue: 1 << 5)
    /// Priorities and a network limit from `LoaderContext.maxConcurrentFetches`, with
    /// `LoaderUnderTest.queuedFetchCount` (SHARE-5).
    public static let priorities = LoaderCapabilities(rawValue: 1 << 6)
    /// Both fetch strategies, chosen by `LoaderContext.fetchStrategy` (FETCH-1).
    public static let selectableFetchStrategy = LoaderCapabilities(rawValue: 1 << 7)
    /// Fetches by streaming the body to a file in `LoaderContext.temporaryDirectory` (FETCH-2).
    public static let downloadsToFile = LoaderCapabilities(rawValue: 1 << 8)
    /// Requests can carry a target size (`ConformanceSource.maxPixelSize`) (SOURCE-3).
    public static let targetSize = LoaderCapabilities(rawValue: 1 << 9)

    /// The disk cache honours HTTP freshness: a stored response is used without a request only
    /// while `Cache-Control`/`Expires`/a heuristic says it is fresh, and is revalidated otherwise
    /// (HTTP-2). A loader that ignores freshness on purpose (store everything, reuse without
    /// asking) declares that by leaving this out.
    public static let httpFreshness = LoaderCapabilities(rawValue: 1 << 10)

    /// A memory-pressure hook MEM-4 can trigger through `LoaderUnderTest.memoryPressure` (a
    /// `MemoryPressureProbe`), with `.memoryCache`. Commits the loader to: after a warning its
    /// memory cache holds at most half the cost it held before the event, after a critical
    /// nothing; loads in flight are neither failed nor cancelled by it (each ends in exactly one
    /// terminal phase, a success, as memory is really there); the cache works afterwards.
    public static let memoryPressure = LoaderCapabilities(rawValue: 1 << 11)

    static let names: [(LoaderCapabilities, String)] = [
        (.memoryCache, "memoryCache"), (.diskCache, "diskCache"), (.retries, "retries"),
        (.injectableClock, "injectableClock"), (.progress, "progress"),
        (.staysEmptyWithoutSource, "staysEmptyWithoutSource"), (.priorities, "priorities"),
        (.selectableFetchStrategy, "selectableFetchStrategy"), (.downloadsToFile, "downloadsToFile"),
        (.targetSize, "targetSize"), (.httpFreshness, "httpFreshness"), (.memoryPressure, "memoryPressure"),
    ]

    public var description: String {
        Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ",")
    }
}
