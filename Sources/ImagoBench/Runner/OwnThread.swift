import Foundation

/// Runs `work`, which blocks (it waits for a child process, sleeps, or reads a pipe to its end),
/// on a thread of its own, and awaits its result.
///
/// Why: Swift's cooperative pool has one thread per core, two on a 2-core machine, and on Linux
/// `DispatchQueue.global()` runs on the same threads. Work that blocks one of them for a child's
/// whole run halves what every other task gets, and two such waits stop them all. In the test
/// suite under ThreadSanitizer on a busy machine a child `imago` runs for seconds: a thread dump
/// taken when conformance checks missed their 10-second bound showed one pool thread waiting for
/// a CLI test's child, the other busy, and nothing else running (the failure of stop 42's CI).
public func onOwnThread<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result: Result<T, E> = await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(returning: Result { () throws(E) in try work() })
        }
    }
    return try result.get()
}
