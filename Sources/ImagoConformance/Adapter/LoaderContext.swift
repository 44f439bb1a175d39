import Foundation

/// How a check wants the loader configured. A loader built twice from one context shares its
/// disk cache (same directory): that is how checks model an app restart or a second process.
public struct LoaderContext: Sendable {
    /// Fetch strategies, for loaders that declare `.selectableFetchStrategy`.
    public enum FetchStrategy: String, Sendable, CaseIterable {
        /// Body accumulated in memory (a data task).
        case data
        /// Body streamed to a temporary file.
        case file
    }

    /// The disk cache's directory (empty at first).
    public let cacheDirectory: URL
    /// Where downloads go while they arrive (empty at first). A loader with a disk cache may
    /// download into `cacheDirectory` instead; FETCH-2 looks in both.
    public let temporaryDirectory: URL
    /// The clock retry back-off must wait on when the loader declares `.injectableClock`.
    public let clock: ManualClock
    /// Automatic retries of transient failures (default 0: none).
    public var maxRetries = 0
    /// First back-off delay (default zero).
    public var retryDelay: Duration = .zero
    /// Memory cache total cost limit in bytes (default nil: the loader's own default).
    public var memoryCostLimit: Int?
    /// Memory cache per-entry cost limit in bytes (default nil: the loader's own default).
    public var memoryEntryCostLimit: Int?
    /// Disk cache size limit in bytes (default nil: the loader's own default).
    public var diskSizeLimit: Int?
    /// Concurrent transport requests (default nil: the loader's own default).
    public var maxConcurrentFetches: Int?
    /// Fetch strategy (default nil: the subject's own).
    public var fetchStrategy: FetchStrategy?

    public init(cacheDirectory: URL, temporaryDirectory: URL, clock: ManualClock = ManualClock()) {
        self.cacheDirectory = cacheDirectory
        self.temporaryDirectory = temporaryDirectory
        self.clock = clock
    }
}
