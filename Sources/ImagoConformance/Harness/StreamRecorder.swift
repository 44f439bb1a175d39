import Synchronization

/// Everything a model's public phase stream (`ModelUnderTest.phases`) yielded, in order: the
/// asynchronous counterpart of `PhaseRecorder` (ORDER-2). The stream is read when the recorder
/// is made, so "subscribed" means at that moment; `stop()` ends the subscription (checks call it
/// before they return, so no iterating task outlives them).
@MainActor
public final class StreamRecorder {
    private final class Log: Sendable {
        let phases = Mutex<[ObservedPhase]>([])
    }
    private let log = Log()
    private var reader: Task<Void, Never>?

    /// Subscribes to `stream` now and records what it yields until `stop()`.
    public init(_ stream: AsyncStream<ObservedPhase>) {
        reader = Task { [log] in
            for await phase in stream { log.phases.withLock { $0.append(phase) } }
        }
    }

    /// Every phase the stream has yielded so far, in order.
    public var phases: [ObservedPhase] { log.phases.withLock { $0 } }

    /// Waits until `condition` holds over the phases so far; false when `timeout` passed first.
    /// The timeout only turns a hang into a failure: ordering never depends on it.
    public func waitUntil(timeout: Duration = .seconds(10), _ condition: ([ObservedPhase]) -> Bool) async -> Bool {
        await ImagoConformance.waitUntil(timeout: timeout) { condition(phases) }
    }

    /// Cancels the reading task, which ends the subscription.
    public func stop() {
        reader?.cancel()
        reader = nil
    }

    /// The evidence form, as `PhaseRecorder.transcript`.
    public var transcript: String { "[" + phases.map(\.description).joined(separator: ", ") + "]" }
}
