import Foundation

/// How a check wants the loader configured. A loader built twice from one context shares its
/// disk cache (same directory): that is how checks model an app restart or a second process.
public struct LoaderContext: Sendable {
    /// Fetch strategies: `.data` and `.file` for loaders that declare `.selectableFetchStrategy`,
    /// `.stream` for those that declare `.decodesWhileStreaming` (the strategies a loader
    /// offers are `LoaderCapabilities.fetchStrategies`).
    public enum FetchStrategy: String, Sendable, CaseIterable {
        /// Body accumulated in memory (a data task), decoded once complete.
        case data
        /// Body streamed to a temporary file, decoded once complete.
        case file
        /// Decode while streaming: each piece of the body goes to the decoder as it arrives, so
        /// the pixels are ready when the last byte is. The loader must not keep the compressed
        /// body in memory (a decoder's own bounded buffer aside; with a disk cache the bytes may
        /// also go to a file as they arrive, never to memory), must end the transfer and the
        /// decode together on a cancel, and must give the pixels and phases of the other
        /// strategies apart from progress and previews (FETCH-3, FETCH-4).
        case stream
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
    /// The least time between two previews of one attempt, for loaders that declare
    /// `.progressivePreviews` (default nil: the loader's own bound). PREVIEW-1 sets it and judges
    /// the previews' rate against it; a loader must publish no two previews of one attempt
    /// closer together than this (zero: as often as scans complete).
    public var previewInterval: Duration?

    /// A context on `cacheDirectory` and `temporaryDirectory` (a check's are fresh and empty)
    /// with `clock` (default: a new `ManualClock` at zero); every other knob starts at its
    /// stated default.
    public init(cacheDirectory: URL, temporaryDirectory: URL, clock: ManualClock = ManualClock()) {
        self.cacheDirectory = cacheDirectory
        self.temporaryDirectory = temporaryDirectory
        self.clock = clock
    }
}
