import Logging

/// Where every stage reports what it did, in four forms kept together so they cannot disagree:
/// the pipeline's counters (`ImagePipeline.counters`), its event handler, swift-metrics
/// instruments (`PipelineMetrics`) and swift-log records. A stage states what happened (a fetch
/// started, a decode waited for memory) by one method here; the extensions in this folder say
/// what each report means in every form. One value shared by the stages.
///
/// Cost when nothing listens: events are made only for a handler, instruments exist only for a
/// factory other than swift-metrics' no-op one, and swift-log builds a message and its metadata
/// only when the logger's level lets the record through.
struct PipelineDiagnostics: Sendable {
    let counters: PipelineCounters
    /// `ImagePipeline.Configuration.Diagnostics.eventHandler` (nil: events are dropped).
    let eventHandler: (@Sendable (PipelineEvent) -> Void)?
    /// `Configuration.Diagnostics.logger`.
    let logger: Logger
    /// Nil when `Configuration.Diagnostics.metricsFactory` is the no-op factory.
    let metrics: PipelineMetrics?
    /// Where ``report(_:)`` keeps reports instead of making them (nil: made at once); see
    /// ``deferring(into:)``.
    private var deferred: DeferredReports?

    init(counters: PipelineCounters, configuration: ImagePipeline.Configuration.Diagnostics) {
        self.counters = counters
        eventHandler = configuration.eventHandler
        logger = configuration.logger
        metrics = PipelineMetrics.make(factory: configuration.metricsFactory, dimensions: configuration.metricsDimensions)
    }

    /// Whether anyone reads stage timings (an event handler or a metrics backend): a clock is
    /// read for them only then.
    var measuresTime: Bool { eventHandler != nil || metrics != nil }

    /// Calls the event handler, if any; the key and the time are worked out only for one.
    func emit(_ kind: PipelineEvent.Kind, _ key: @autoclosure () -> String,
              at time: @autoclosure () -> ContinuousClock.Instant = .now, httpVersion: String? = nil) {
        eventHandler?(PipelineEvent(key: key(), kind: kind, time: time(), httpVersion: httpVersion))
    }

    func record(_ update: (inout PipelineCounters.Snapshot) -> Void) {
        counters.record(update)
    }

    /// These diagnostics, keeping what ``report(_:)`` is given in `reports` for the load's task
    /// to make (``DeferredReports/replay()``) instead of making it on the calling thread.
    func deferring(into reports: DeferredReports) -> Self {
        var copy = self
        copy.deferred = reports
        return copy
    }

    /// Runs `body` (which makes one report in every form) now, or keeps it for the load's task
    /// when these diagnostics defer.
    func report(_ body: @escaping @Sendable (PipelineDiagnostics) -> Void) {
        guard let deferred else { return body(self) }
        var copy = self
        copy.deferred = nil
        let immediate = copy
        deferred.append { body(immediate) }
    }

    /// The instant a stage timing starts or ends: read only when `measuresTime`.
    func now() -> ContinuousClock.Instant? {
        measuresTime ? .now : nil
    }
}

// MARK: - Loads and the memory cache

extension PipelineDiagnostics {
    /// A load missed the memory cache and joins or starts the work for its key.
    func loadStarted(_ key: ImageRequestKey) {
        emit(.queued, key.description)
        logger.debug("Load started", metadata: ["key": "\(key)", "source": "\(key.source)"])
    }

    /// A load that missed the memory cache ended (for every caller that joined the work).
    func loadEnded(_ key: ImageRequestKey, _ outcome: Result<ImageResponse, ImageLoadingError>) {
        logger.debug("Load ended", metadata: {
            var metadata: Logger.Metadata = ["key": "\(key)"]
            switch outcome {
            case .success(let response):
                metadata["outcome"] = "success"
                metadata["origin"] = "\(response.origin)"
                if let disk = response.diskCache { metadata["disk_cache"] = "\(disk)" }
            case .failure(let error):
                metadata["outcome"] = error.isCancellation ? "cancelled" : "failure"
                metadata["error"] = "\(error.detail)"
            }
            return metadata
        }())
    }

    /// The memory cache held the request's image.
    func memoryHit(_ key: ImageRequestKey) {
        record { $0.memoryHits += 1 }
        metrics?.cacheHits[.memory]?.increment()
        logger.trace("Memory cache hit", metadata: ["key": "\(key)"])
    }

    /// A decoded image was kept in the memory cache, at `cost` bytes.
    func memoryStored(_ key: ImageRequestKey, cost: Int) {
        emit(.cacheStore, key.description)
        logger.trace("Stored in the memory cache", metadata: ["key": "\(key)", "cost_bytes": "\(cost)"])
    }
}
