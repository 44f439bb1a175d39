import Foundation

extension ImagePipeline {
    /// Everything a pipeline is made of. Each knob states its default.
    public struct Configuration: Sendable {
        /// How bytes are fetched. Default: on Linux `AsyncHTTPClientTransport.shared` (SwiftNIO:
        /// IPv6 literals, sub-second idle timeouts, bodies streamed with backpressure), elsewhere
        /// a new `URLSessionTransport`. Either can be passed on any platform.
        public var transport: any ImageTransport
        /// Decoded images by request key (default: a `MemoryCache` with its default limits;
        /// nil disables the memory cache).
        public var memoryCache: MemoryCache<ImageRequestKey, DecodedImage>?
        /// Original encoded bytes by source (default nil: no disk cache).
        public var diskCache: DiskCache?
        /// Which responses the disk cache stores and when a stored one is used without asking
        /// the server (default `.http`: RFC 9111's rules for a private cache). Freshness is
        /// judged on `clock`.
        public var httpCachePolicy: HTTPCachePolicy
        /// How bodies are received unless a request says otherwise (default `.data`).
        public var fetchStrategy: FetchStrategy
        /// Fetches running at once (default 6).
        public var maxConcurrentFetches: Int
        /// Decodes running at once (default: the number of active processors).
        public var maxConcurrentDecodes: Int
        /// Bytes the decodes in flight may need together: each decode declares its output plus
        /// working memory, read from the image's header before any pixel is allocated
        /// (`DecodeMemoryEstimate`), and waits, in priority order, until it fits. An image
        /// larger than the whole budget runs alone; one larger than the effective memory limit
        /// fails with `.exceedsMemoryLimit` before allocating. A decode also waits while the
        /// pixels alive in the process plus its own would pass `MemoryBudgets.livePixelCeiling`
        /// (2/3 of the limit; at most 500 ms while no other decode runs). Default
        /// `MemoryBudgets.current.decodeBudget` (a quarter of the effective memory limit);
        /// `Int.max` turns the byte bound, the live-pixel wait and the limit check off.
        public var decodeMemoryBudget: Int
        /// Trim on memory pressure (`ImagePipeline.trimMemory`): a warning halves what the memory
        /// cache holds and returns pooled pixel memory; a critical event
        /// empties both, returns freed heap, and holds new decode admissions for
        /// `ImagePipeline.criticalPressureHold` while running decodes finish (default true).
        public var respondsToMemoryPressure: Bool
        /// Where pressure events come from when `respondsToMemoryPressure` is set (default
        /// `MemoryPressureMonitor.shared`, watching this process's cgroup).
        public var memoryPressureMonitor: MemoryPressureMonitor
        /// Default: 2 retries, 250 ms doubling up to 4 s.
        public var retryPolicy: RetryPolicy
        /// The one time source: exchanges are dated and disk entries judged fresh by its `now`,
        /// and retry back-offs wait on its `sleep(for:)` (default `.system`: the wall clock and
        /// `ContinuousClock`; tests inject one).
        public var clock: PipelineClock
        /// Time without data before a fetch times out (default 30 s; each transport's reading of
        /// it, off values included, is on `FetchRequest.idleTimeout`).
        public var idleTimeout: Duration
        /// Largest body accepted, in bytes (default 256 MiB).
        public var maxResponseSize: Int
        /// Where download-to-file temporaries go when there is no disk cache (default: the
        /// system temporary directory; with a disk cache, its own directory, so the finished
        /// file is renamed into the cache).
        public var temporaryDirectory: URL
        /// Receives every `PipelineEvent` (default nil). Called on arbitrary threads.
        public var eventHandler: (@Sendable (PipelineEvent) -> Void)?
        /// Progressive previews while a `.stream` fetch arrives (progressive JPEG scans, Adam7
        /// PNG passes), published inside `loading` (rule PREVIEW-1). Default nil: none.
        public var previews: PreviewPolicy? = nil

        public init(transport: any ImageTransport = Configuration.defaultTransport(),
                    memoryCache: MemoryCache<ImageRequestKey, DecodedImage>? = MemoryCache(),
                    diskCache: DiskCache? = nil,
                    httpCachePolicy: HTTPCachePolicy = .http,
                    fetchStrategy: FetchStrategy = .data,
                    maxConcurrentFetches: Int = 6,
                    maxConcurrentDecodes: Int = ProcessInfo.processInfo.activeProcessorCount,
                    decodeMemoryBudget: Int = MemoryBudgets.current.decodeBudget,
                    respondsToMemoryPressure: Bool = true,
                    memoryPressureMonitor: MemoryPressureMonitor = .shared,
                    retryPolicy: RetryPolicy = RetryPolicy(),
                    clock: PipelineClock = .system,
                    idleTimeout: Duration = .seconds(30),
                    maxResponseSize: Int = 256 << 20,
                    temporaryDirectory: URL = FileManager.default.temporaryDirectory,
                    eventHandler: (@Sendable (PipelineEvent) -> Void)? = nil) {
            self.transport = transport
            self.memoryCache = memoryCache
            self.diskCache = diskCache
            self.httpCachePolicy = httpCachePolicy
            self.fetchStrategy = fetchStrategy
            self.maxConcurrentFetches = maxConcurrentFetches
            self.maxConcurrentDecodes = maxConcurrentDecodes
            self.decodeMemoryBudget = decodeMemoryBudget
            self.respondsToMemoryPressure = respondsToMemoryPressure
            self.memoryPressureMonitor = memoryPressureMonitor
            self.retryPolicy = retryPolicy
            self.clock = clock
            self.idleTimeout = idleTimeout
            self.maxResponseSize = maxResponseSize
            self.temporaryDirectory = temporaryDirectory
            self.eventHandler = eventHandler
        }

        /// The platform's default transport (see `transport`).
        public static func defaultTransport() -> any ImageTransport {
            BuiltInTransport.platformDefault.make()
        }

        /// Whether decodes are budgeted at all (`decodeMemoryBudget` is not `Int.max`): the byte
        /// bound, the live-pixel wait and the refusal past the memory limit go together.
        var budgetsDecodeMemory: Bool { decodeMemoryBudget != .max }
    }
}
