/// Where every stage reports what it did: the pipeline's counters and its event handler. One
/// value shared by the stages, so an event means the same wherever it is emitted.
struct PipelineDiagnostics: Sendable {
    let counters: PipelineCounters
    /// `ImagePipeline.Configuration.Diagnostics.eventHandler` (nil: events are dropped).
    let eventHandler: (@Sendable (PipelineEvent) -> Void)?

    func emit(_ kind: PipelineEvent.Kind, _ key: String) {
        eventHandler?(PipelineEvent(key: key, kind: kind, time: .now))
    }

    func record(_ update: (inout PipelineCounters.Snapshot) -> Void) {
        counters.record(update)
    }
}
