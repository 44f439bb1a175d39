/// A pressure probe whose events are recorded as steps.
@MainActor
final class RecordingPressureProbe: MemoryPressureProbe {
    private let inner: any MemoryPressureProbe
    private let label: String
    private let log: StepLog

    init(_ inner: any MemoryPressureProbe, label: String, log: StepLog) {
        self.inner = inner
        self.label = label
        self.log = log
    }

    func simulateMemoryPressure(_ level: SimulatedPressureLevel) {
        inner.simulateMemoryPressure(level)
        log.record("\(label): \(level.rawValue) memory pressure delivered")
    }
}

/// MEM-5's view through the recording wrappers: the adapter's own objects (which the wrappers
/// hide from the check) come first, then whatever the adapter's probe names behind them.
@MainActor
final class RecordingLifetimeProbe: LifetimeProbe {
    private let loader: any LoaderUnderTest

    init(_ loader: any LoaderUnderTest) { self.loader = loader }

    var loaderObjects: [AnyObject] { [loader] + (loader.lifetime?.loaderObjects ?? []) }

    func objects(behind model: any ModelUnderTest) -> [AnyObject] {
        let adapterModel = (model as? RecordingModel)?.inner ?? model
        return [adapterModel] + (loader.lifetime?.objects(behind: adapterModel) ?? [])
    }

    var liveDecodedBytes: Int? { loader.lifetime?.liveDecodedBytes }
}
