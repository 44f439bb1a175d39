import Synchronization

/// Keeps one observer of a `MemoryPressureMonitor` registered. The observation ends when this
/// is cancelled or deinitialised, and the monitor then releases the handler (and whatever it
/// captured): hold the token as long as you want events, e.g. in the pipeline that trims on
/// pressure. Holds the monitor weakly: dropping the monitor ends every observation.
public final class MemoryPressureObservation: Sendable {
    private weak let monitor: MemoryPressureMonitor?
    private let id: UInt64
    private let cancelled = Atomic<Bool>(false)

    init(monitor: MemoryPressureMonitor, id: UInt64) {
        self.monitor = monitor
        self.id = id
    }

    /// Ends the observation; the handler is not called after this returns, except by a delivery
    /// already running on another thread. Idempotent.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        monitor?.removeObserver(id)
    }

    /// Whether ``cancel()`` has run (directly or from deinit). Dropping the monitor ends the
    /// observation without setting it.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    deinit { cancel() }
}
