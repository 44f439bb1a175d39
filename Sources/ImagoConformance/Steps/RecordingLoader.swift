/// The loader instance a check gets from `CheckRun.loader()`, wrapping the adapter's: models it
/// makes are `RecordingModel`s, cache probe actions are recorded, and its release by the check
/// is a step (a check models an app restart by dropping one instance and making another).
@MainActor
final class RecordingLoader: LoaderUnderTest {
    let inner: any LoaderUnderTest
    /// "loader 1", as the steps name it.
    nonisolated let label: String
    nonisolated private let log: StepLog

    init(_ inner: any LoaderUnderTest, label: String, log: StepLog) {
        self.inner = inner
        self.label = label
        self.log = log
    }

    deinit { log.record("\(label) released by the check") }

    func makeModel(source: ConformanceSource?) -> any ModelUnderTest {
        let model = inner.makeModel(source: source)
        let modelLabel = "model \(log.nextModelNumber())"
        log.record("\(modelLabel) created on \(label) for \(source.map(\.description) ?? "no source") → \(model.phase)")
        return RecordingModel(model, label: modelLabel, log: log)
    }

    var decodeCount: Int { get async { await inner.decodeCount } }
    var queuedFetchCount: Int? { get async { await inner.queuedFetchCount } }

    var memoryCache: (any MemoryCacheProbe)? {
        inner.memoryCache.map { RecordingMemoryCacheProbe($0, label: label, log: log) }
    }

    var diskCache: (any DiskCacheProbe)? {
        inner.diskCache.map { RecordingDiskCacheProbe($0, label: label, log: log) }
    }

    var memoryPressure: (any MemoryPressureProbe)? {
        inner.memoryPressure.map { RecordingPressureProbe($0, label: label, log: log) }
    }

    var lifetime: (any LifetimeProbe)? { RecordingLifetimeProbe(inner) }
}
