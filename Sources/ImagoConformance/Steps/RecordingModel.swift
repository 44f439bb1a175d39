/// The model a check drives, wrapping the adapter's: every call is forwarded unchanged and
/// recorded as a step, with the phase the model shows when the call returns (what the rules
/// judge "before it returns"). Those phases are kept as `reads`: ORDER-2 checks that every one of
/// them reached the model's observer, in order (`ObserverFidelity`).
@MainActor
final class RecordingModel: ModelUnderTest {
    let inner: any ModelUnderTest
    /// "model 2", as the steps name it.
    let label: String
    private let log: StepLog
    /// The phase right after every forwarded call, in call order.
    let reads: SynchronousReads

    init(_ inner: any ModelUnderTest, label: String, log: StepLog) {
        self.inner = inner
        self.label = label
        self.log = log
        reads = SynchronousReads(label: label)
    }

    var phase: ObservedPhase { inner.phase }

    func observe(_ observer: @escaping @Sendable (ObservedPhase) -> Void) {
        inner.observe(observer)
        log.record("\(label): observer attached")
    }

    /// Forwarded, never left to the protocol's default: a wrapper answering nil would hide the
    /// model's stream from ORDER-2.
    var phases: AsyncStream<ObservedPhase>? {
        let stream = inner.phases
        if stream != nil { log.record("\(label): phases stream subscribed") }
        return stream
    }

    func load() {
        inner.load()
        record("load()")
    }

    func cancel() {
        inner.cancel()
        record("cancel()")
    }

    func retry() {
        inner.retry()
        record("retry()")
    }

    func setSource(_ source: ConformanceSource?) {
        inner.setSource(source)
        record("setSource(\(source.map(\.description) ?? "nil"))")
    }

    func setPriority(_ priority: Int) {
        inner.setPriority(priority)
        record("setPriority(\(priority))")
    }

    private func record(_ call: String) {
        let phase = inner.phase
        reads.append(SynchronousRead(phase: phase, at: .now, call: "\(label): \(call)"))
        log.record("\(label): \(call) → \(phase)")
    }
}
