import CoreMetrics
import Foundation
import Logging

extension ImagePipeline {
    /// Everything a pipeline is made of, in five groups and one feature: what it uses
    /// (`dependencies`), how it talks HTTP (`network`), how much runs at once (`limits`), how it
    /// keeps within memory (`memory`), what it reports (`diagnostics`) and the previews of a
    /// streamed body (`previews`). Each knob states its default; `Configuration()` is the
    /// default pipeline (no disk cache), and the presets (`withoutDiskCache`,
    /// `withDiskCache(at:sizeLimit:)`, `constrainedContainer(diskCache:)`) cover the common
    /// setups. Groups keep a pipeline's ~20 knobs apart by what they are about, so the
    /// initializer stays short and a change names its group:
    ///
    ///     var configuration = try ImagePipeline.Configuration.withDiskCache(at: directory)
    ///     configuration.network.retryPolicy = .none
    public struct Configuration: Sendable {
        /// The objects the pipeline uses and an app may supply: transport, caches, clock.
        public var dependencies: Dependencies
        /// How bodies are fetched, retried, bounded and cached by HTTP's rules.
        public var network: Network
        /// How many fetches and decodes run at once.
        public var limits: Limits
        /// The decode memory budget and the response to memory pressure.
        public var memory: Memory
        /// What the pipeline reports as it works.
        public var diagnostics: Diagnostics
        /// Progressive previews while a `.stream` fetch arrives (progressive JPEG scans, Adam7
        /// PNG passes), published inside `loading` (rule PREVIEW-1). Default nil: none.
        public var previews: PreviewPolicy?

        /// A configuration of the given groups, each defaulting to its own defaults, and no
        /// previews: `Configuration()` is the default pipeline (memory cache, no disk cache).
        public init(dependencies: Dependencies = Dependencies(), network: Network = Network(),
                    limits: Limits = Limits(), memory: Memory = Memory(),
                    diagnostics: Diagnostics = Diagnostics(), previews: PreviewPolicy? = nil) {
            self.dependencies = dependencies
            self.network = network
            self.limits = limits
            self.memory = memory
            self.diagnostics = diagnostics
            self.previews = previews
        }

        /// The platform's default transport (see `Dependencies.transport`).
        public static func defaultTransport() -> any ImageTransport {
            BuiltInTransport.platformDefault.make()
        }
    }
}

extension ImagePipeline.Configuration {
    /// The objects the pipeline uses rather than is: each behind a type an app can supply.
    public struct Dependencies: Sendable {
        /// How bytes are fetched. Default: on Linux `AsyncHTTPClientTransport.shared` (SwiftNIO:
        /// IPv6 literals, sub-second idle timeouts, bodies streamed with backpressure), elsewhere
        /// a new `URLSessionTransport`. Either can be passed on any platform.
        public var transport: any ImageTransport
        /// Decoded images by request key (default: a `MemoryCache` with its default limits;
        /// nil disables the memory cache). Any `ImageMemoryCaching` an app implements will do.
        public var memoryCache: (any ImageMemoryCaching)?
        /// Original encoded bytes by source (default nil: no disk cache; `DiskCache` is the
        /// built-in one, and any `ImageDiskCaching` an app implements will do). With one,
        /// downloads to file go to the files it hands out (so the finished file is renamed into
        /// it), not to `Network.temporaryDirectory`.
        public var diskCache: (any ImageDiskCaching)?
        /// The one time source: exchanges are dated and disk entries judged fresh by its `now`,
        /// and retry back-offs wait on its `sleep(for:)` (default `.system`: the wall clock and
        /// `ContinuousClock`; tests inject one).
        public var clock: PipelineClock
        /// Makes the pools that coalesce identical decodes and fetches (default
        /// `StandardTaskPools`). For the mutation harness, which puts pools that share work
        /// wrongly in their place; an app has no reason to change it.
        @_spi(Testing) public var taskPools: any TaskPoolMaking = StandardTaskPools()

        /// The platform's default transport, a `MemoryCache` with its default limits, no disk
        /// cache, and the `.system` clock, unless given.
        public init(transport: any ImageTransport = ImagePipeline.Configuration.defaultTransport(),
                    memoryCache: (any ImageMemoryCaching)? = MemoryCache<ImageRequestKey, DecodedImage>(),
                    diskCache: (any ImageDiskCaching)? = nil,
                    clock: PipelineClock = .system) {
            self.transport = transport
            self.memoryCache = memoryCache
            self.diskCache = diskCache
            self.clock = clock
        }
    }

    /// How the pipeline talks HTTP: the strategy bodies arrive by, what is retried, the bounds on
    /// a response, and what the disk cache keeps by HTTP's rules.
    public struct Network: Sendable {
        /// How bodies are received unless a request says otherwise (default `.data`).
        public var fetchStrategy: FetchStrategy
        /// Which responses the disk cache stores and when a stored one is used without asking
        /// the server (default `.http`: RFC 9111's rules for a private cache). Freshness is
        /// judged on `Dependencies.clock`.
        public var httpCachePolicy: HTTPCachePolicy
        /// Which failures are retried and the back-off between tries (default: 2 retries,
        /// 250 ms doubling up to 4 s).
        public var retryPolicy: RetryPolicy
        /// Time without data before a fetch times out (default 30 s; each transport's reading of
        /// it, off values included, is on `FetchRequest.idleTimeout`).
        public var idleTimeout: Duration
        /// Largest body accepted, in bytes (default 256 MiB).
        public var maxResponseSize: Int
        /// Where download-to-file temporaries go when there is no disk cache (default: the
        /// system temporary directory; with a disk cache, its own directory, so the finished
        /// file is renamed into the cache).
        public var temporaryDirectory: URL
        /// How a fetch locks the partial download it continues, so that two fetches of one
        /// source never write one file (default: an exclusive `flock`). A seam for the mutation
        /// harness only.
        @_spi(Testing) public var partialDownloadLocking: any PartialDownloadLocking = FlockPartialDownloadLocking()

        /// `.data`, the `.http` cache policy, `RetryPolicy()` (2 retries), a 30 s idle timeout, a
        /// 256 MiB body limit and the system temporary directory, unless given.
        public init(fetchStrategy: FetchStrategy = .data,
                    httpCachePolicy: HTTPCachePolicy = .http,
                    retryPolicy: RetryPolicy = RetryPolicy(),
                    idleTimeout: Duration = .seconds(30),
                    maxResponseSize: Int = 256 << 20,
                    temporaryDirectory: URL = FileManager.default.temporaryDirectory) {
            self.fetchStrategy = fetchStrategy
            self.httpCachePolicy = httpCachePolicy
            self.retryPolicy = retryPolicy
            self.idleTimeout = idleTimeout
            self.maxResponseSize = maxResponseSize
            self.temporaryDirectory = temporaryDirectory
        }
    }

    /// How much work runs at once; the rest waits in priority order.
    public struct Limits: Sendable {
        /// Fetches running at once over connections that carry one request at a time: HTTP/1.x,
        /// and an origin that has not answered yet unless the transport may speak HTTP/2 to it
        /// (default 6, what HTTP/1.1 clients open per host).
        public var maxConcurrentFetches: Int
        /// Fetches running at once, across origins, to origins whose last response came over
        /// HTTP/2: streams on a shared connection, which cost no handshake (default 64: under
        /// the 100 most CDNs and the 128 nginx allow a connection, so the pipeline never meets
        /// the server's limit; a bound on the bodies in flight too). While a fetch there has not
        /// had its first byte, fetches of lower priority there wait: HTTP/2 gives the client no
        /// stream priority to ask for.
        public var maxConcurrentStreams: Int
        /// Decodes running at once (default: the number of active processors).
        public var maxConcurrentDecodes: Int

        /// 6 fetches over HTTP/1.1, 64 over HTTP/2 and one decode per active processor at once,
        /// unless given.
        public init(maxConcurrentFetches: Int = 6,
                    maxConcurrentStreams: Int = 64,
                    maxConcurrentDecodes: Int = ProcessInfo.processInfo.activeProcessorCount) {
            self.maxConcurrentFetches = maxConcurrentFetches
            self.maxConcurrentStreams = maxConcurrentStreams
            self.maxConcurrentDecodes = maxConcurrentDecodes
        }
    }

    /// How the pipeline keeps within the process's memory.
    public struct Memory: Sendable {
        /// Bytes the decodes in flight may need together: each decode declares its output plus
        /// working memory, read from the image's header before any pixel is allocated
        /// (`DecodeMemoryEstimate`), and waits, in priority order, until it fits. An image
        /// larger than the whole budget runs alone; one larger than the effective memory limit
        /// fails with `.exceedsMemoryLimit` before allocating. A decode also waits while the
        /// pixels alive in the process plus its own would pass `MemoryBudgets.livePixelCeiling`
        /// (2/3 of the limit; at most 500 ms while no other decode runs). Default
        /// `MemoryBudgets.current.decodeBudget` (a quarter of the effective memory limit);
        /// `Int.max` turns the byte bound, the live-pixel wait and the limit check off.
        public var decodeBudget: Int
        /// Trim on memory pressure (`ImagePipeline.trimMemory`): a warning halves what the memory
        /// cache holds and returns pooled pixel memory; a critical event
        /// empties both, returns freed heap, and holds new decode admissions for
        /// `ImagePipeline.criticalPressureHold` while running decodes finish (default true).
        public var respondsToPressure: Bool
        /// What every memory decision reads: the effective limit, the pixel memory alive and
        /// pooled, the process's other resident memory, and where pressure events come from
        /// when `respondsToPressure` is set (default `.process`: this process's cgroup,
        /// `PixelMemory`, /proc/self/statm and `MemoryPressureMonitor.shared`).
        public var environment: MemoryEnvironment

        /// A decode budget of a quarter of the effective memory limit (read when this runs), a
        /// response to pressure, and this process's environment, unless given.
        public init(decodeBudget: Int = MemoryBudgets.current.decodeBudget,
                    respondsToPressure: Bool = true,
                    environment: MemoryEnvironment = .process) {
            self.decodeBudget = decodeBudget
            self.respondsToPressure = respondsToPressure
            self.environment = environment
        }
    }

    /// What the pipeline reports as it works: events to a handler, logs through swift-log and
    /// metrics through swift-metrics (its counters are always kept: `ImagePipeline.counters`).
    /// The log records and the metrics are listed in <doc:Observability>.
    public struct Diagnostics: Sendable {
        /// Receives every `PipelineEvent` (default nil). Called on arbitrary threads.
        public var eventHandler: (@Sendable (PipelineEvent) -> Void)?
        /// Where the pipeline logs its decisions: loads and fetches starting and ending, retries,
        /// disk and memory cache decisions, decodes waiting for or refused memory, trims and
        /// pressure, all at `debug` or `trace` with metadata (`source`, `key`, `strategy`...).
        /// Default: a quiet logger (`SwiftLogNoOpLogHandler`, label "imago"): nothing is logged,
        /// whatever `LoggingSystem` was bootstrapped with, until the app passes its own, e.g.
        /// `Logger(label: "imago")`. Its level decides what is built at all: a record below it
        /// costs one level check.
        public var logger: Logger
        /// Makes the pipeline's counters and timers (`imago_fetches_total`...), once, when the
        /// pipeline is made. Default: `MetricsSystem.factory` as it is when this value is made
        /// (bootstrap `MetricsSystem` first); while that is swift-metrics' no-op factory, the
        /// pipeline makes no instrument and reports nothing. Tests pass a `TestMetrics`.
        public var metricsFactory: any MetricsFactory
        /// Dimensions added to every metric of this pipeline, e.g.
        /// `[("pipeline", "avatars")]` to tell two pipelines apart (default: none).
        public var metricsDimensions: [(String, String)]

        /// Each argument is the property of the same name, with its default: no event handler
        /// (events are dropped; ``ImagePipeline/counters`` are kept anyway), the quiet logger,
        /// `MetricsSystem.factory` as it is now, no extra dimensions.
        public init(eventHandler: (@Sendable (PipelineEvent) -> Void)? = nil,
                    logger: Logger = Diagnostics.quietLogger,
                    metricsFactory: any MetricsFactory = MetricsSystem.factory,
                    metricsDimensions: [(String, String)] = []) {
            self.eventHandler = eventHandler
            self.logger = logger
            self.metricsFactory = metricsFactory
            self.metricsDimensions = metricsDimensions
        }

        /// The default `logger`: label "imago", every record dropped (`SwiftLogNoOpLogHandler`).
        public static var quietLogger: Logger {
            Logger(label: "imago", factory: { _ in SwiftLogNoOpLogHandler() })
        }
    }
}
