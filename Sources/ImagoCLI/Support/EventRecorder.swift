import Imago
import Synchronization

/// Every pipeline event of the run, for the summary and for knowing when the work has ended.
final class EventRecorder: Sendable {
    private let recorded = Mutex<[PipelineEvent]>([])

    var events: [PipelineEvent] { recorded.withLock { $0 } }

    @Sendable func record(_ event: PipelineEvent) { recorded.withLock { $0.append(event) } }

    /// The events of `kind` recorded so far for `key`.
    func count(_ kind: PipelineEvent.Kind, key: String) -> Int {
        recorded.withLock { events in events.count { $0.kind == kind && $0.key == key } }
    }

    /// Waits (polling, at most `timeout`) until every fetch and decode that started has ended:
    /// after a cancel, that is when their temporary files have been removed. False on timeout.
    func waitUntilIdle(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let idle = recorded.withLock { events in
                func count(_ kind: PipelineEvent.Kind) -> Int { events.reduce(0) { $0 + ($1.kind == kind ? 1 : 0) } }
                return count(.fetchStart) == count(.fetchEnd) && count(.decodeStart) == count(.decodeEnd)
            }
            if idle { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
}
