import CoreMetrics
import Metrics

/// The pipeline's swift-metrics instruments, made once per pipeline from
/// `Configuration.Diagnostics.metricsFactory`: every dimension a stage reports with takes its
/// value from a small closed set, so each label and dimension pair is one object made here, and
/// reporting is one call on it (no lookup, no allocation). The names and dimensions are the
/// table in the Observability article; `PipelineCounters` keeps the same totals.
final class PipelineMetrics: Sendable {
    let fetches: [FetchStrategy: Counter]
    let fetchDurations: [FetchStrategy: [FetchOutcome: CoreMetrics.Timer]]
    let firstBytes: [FetchStrategy: CoreMetrics.Timer]
    let retries: [RetryReason: Counter]
    let fetchQueueWait: CoreMetrics.Timer
    let decodeQueueWait: CoreMetrics.Timer
    let decodes: Counter
    let decodeDuration: CoreMetrics.Timer
    let decodeBytesAdmitted: Counter
    let decodeBytesInFlight: Meter
    let decodeMemoryWaits: Counter
    let decodeMemoryRefusals: Counter
    let cacheHits: [CacheTier: Counter]
    let diskStores: (stored: Counter, replaced: Counter)
    let diskNotStored: [DiskCacheOutcome.NotStoredReason: Counter]
    let resumedDownloads: Counter
    let resumedBytes: Counter
    let pressureEvents: [MemoryPressureLevel: Counter]
    let cacheTrims: [TrimCause: Counter]

    /// How a transport request ended (`outcome` of `imago_fetch_duration_seconds`).
    enum FetchOutcome: String, CaseIterable {
        /// The transport returned a response (any status it hands back: 200, 206, 304).
        case success
        case failure
        case cancelled
    }

    /// Why a fetch is asked again (`reason` of `imago_fetch_retries_total`).
    enum RetryReason: String, CaseIterable {
        /// A status in `RetryPolicy.retriedStatuses`.
        case status
        /// The connection failed or broke.
        case transport
        /// The body ended short of its Content-Length.
        case truncated

        init(_ error: FetchError) {
            switch error {
            case .httpStatus: self = .status
            case .truncated: self = .truncated
            default: self = .transport
            }
        }
    }

    /// Which cache served a load (`tier` of `imago_cache_hits_total`).
    enum CacheTier: String, CaseIterable {
        case memory
        /// A fresh disk entry, no request.
        case diskFresh = "disk_fresh"
        /// A disk entry the server confirmed with a 304.
        case diskRevalidated = "disk_revalidated"
    }

    /// Why the memory cache was trimmed (`cause` of `imago_memory_cache_trims_total`).
    enum TrimCause: String, CaseIterable {
        /// A memory-pressure event the pipeline observed.
        case pressure
        /// The app called `ImagePipeline.trimMemory`.
        case app
        /// A decode needed room under the live pixel ceiling.
        case decode
    }

    /// `dimensions` are added to every instrument (`Configuration.Diagnostics.metricsDimensions`).
    init(factory: any MetricsFactory, dimensions: [(String, String)]) {
        func counter(_ label: String, _ extra: [(String, String)] = []) -> Counter {
            Counter(label: label, dimensions: dimensions + extra, factory: factory)
        }
        func timer(_ label: String, _ extra: [(String, String)] = []) -> CoreMetrics.Timer {
            CoreMetrics.Timer(label: label, dimensions: dimensions + extra, factory: factory)
        }
        func each<Key: Hashable>(_ keys: [Key], _ make: (Key) -> Counter) -> [Key: Counter] {
            Dictionary(uniqueKeysWithValues: keys.map { ($0, make($0)) })
        }
        let strategies = FetchStrategy.allCases
        fetches = each(strategies) { counter("imago_fetches_total", [("strategy", $0.rawValue)]) }
        fetchDurations = Dictionary(uniqueKeysWithValues: strategies.map { strategy in
            (strategy, Dictionary(uniqueKeysWithValues: FetchOutcome.allCases.map { outcome in
                (outcome, timer("imago_fetch_duration_seconds", [("strategy", strategy.rawValue), ("outcome", outcome.rawValue)]))
            }))
        })
        firstBytes = Dictionary(uniqueKeysWithValues: strategies.map {
            ($0, timer("imago_fetch_first_byte_seconds", [("strategy", $0.rawValue)]))
        })
        retries = each(RetryReason.allCases) { counter("imago_fetch_retries_total", [("reason", $0.rawValue)]) }
        fetchQueueWait = timer("imago_queue_wait_seconds", [("stage", "fetch")])
        decodeQueueWait = timer("imago_queue_wait_seconds", [("stage", "decode")])
        decodes = counter("imago_decodes_total")
        decodeDuration = timer("imago_decode_duration_seconds")
        decodeBytesAdmitted = counter("imago_decode_bytes_admitted_total")
        decodeBytesInFlight = Meter(label: "imago_decode_bytes_in_flight", dimensions: dimensions, factory: factory)
        decodeMemoryWaits = counter("imago_decode_memory_waits_total")
        decodeMemoryRefusals = counter("imago_decode_memory_refusals_total")
        cacheHits = each(CacheTier.allCases) { counter("imago_cache_hits_total", [("tier", $0.rawValue)]) }
        diskStores = (counter("imago_disk_cache_stores_total", [("outcome", "stored")]),
                      counter("imago_disk_cache_stores_total", [("outcome", "replaced")]))
        diskNotStored = each(DiskCacheOutcome.NotStoredReason.allCases) {
            counter("imago_disk_cache_not_stored_total", [("reason", $0.rawValue)])
        }
        resumedDownloads = counter("imago_resumed_downloads_total")
        resumedBytes = counter("imago_resumed_bytes_total")
        pressureEvents = each([.warning, .critical]) { counter("imago_memory_pressure_events_total", [("level", $0.description)]) }
        cacheTrims = each(TrimCause.allCases) { counter("imago_memory_cache_trims_total", [("cause", $0.rawValue)]) }
    }

    /// Instruments for `factory`, or nil when it is swift-metrics' no-op factory (nothing
    /// bootstrapped): then no instrument exists and reporting costs one nil check.
    static func make(factory: any MetricsFactory, dimensions: [(String, String)]) -> PipelineMetrics? {
        factory is NOOPMetricsHandler ? nil : PipelineMetrics(factory: factory, dimensions: dimensions)
    }
}
