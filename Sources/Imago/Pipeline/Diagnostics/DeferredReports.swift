import Synchronization

/// Reports made on a thread that is not the load's task (the disk stage's blocking threads,
/// `DiskStage.offCooperativePool`), kept in order and made on the load's task afterwards by
/// ``replay()``. Why: an event handler, or a logger's metadata provider, that reads task-local
/// values (a request ID, a trace context) sees the load's own, as it does for every other
/// report; on a pool thread it saw none.
final class DeferredReports: Sendable {
    private let reports = Mutex<[@Sendable () -> Void]>([])

    /// Keeps `report` for ``replay()``.
    func append(_ report: @escaping @Sendable () -> Void) {
        reports.withLock { $0.append(report) }
    }

    /// Makes the kept reports in the order they were kept, and forgets them.
    func replay() {
        let kept = reports.withLock { reports in
            defer { reports = [] }
            return reports
        }
        for report in kept { report() }
    }
}
