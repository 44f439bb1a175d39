import Foundation

/// The pipeline's one source of time. `now` dates each HTTP exchange (when it was requested and
/// received) and is what a disk entry's freshness is judged against: wall-clock time, because
/// RFC 9111 compares it with the server's `Date`, `Expires` and `Last-Modified`. `sleep(for:)`
/// waits out retry back-offs: an interval, so by default on a monotonic clock that a change of
/// the system time cannot stretch. They are one value so that a test, or an app that keeps its
/// own time, moves both with one hand: the back-off that ends and the entry that goes stale.
///
/// The disk cache's own bookkeeping (access times for eviction, sweeps of old temporaries) runs
/// on `DiskCache.Configuration.now`; it decides which bytes are kept, not whether they are fresh.
public struct PipelineClock: Sendable {
    private let readNow: @Sendable () -> Date
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// A clock from its two halves. `sleep` must throw when the calling task is cancelled
    /// (a back-off cut short ends the load as `.cancelled`, RETRY-2).
    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        readNow = now
        sleeper = sleep
    }

    /// Dates from `now` (default: the system's wall clock), back-offs on `clock` (a test's manual
    /// clock, say).
    public init(now: @escaping @Sendable () -> Date = Date.init, sleepingOn clock: some Clock<Duration>) {
        self.init(now: now, sleep: { duration in try await clock.sleep(for: duration) })
    }

    /// The system's wall clock for dates and `ContinuousClock` for back-offs: the default.
    public static let system = PipelineClock(sleepingOn: ContinuousClock())

    /// The current date, for HTTP dates and freshness.
    public var now: Date { readNow() }

    /// Waits `duration` (a retry back-off); throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleeper(duration)
    }
}
