@_spi(Testing) import Imago
import Synchronization

/// The planted bugs in how identical loads share work (SHARE-2 to SHARE-5): pools that share
/// wrongly, each built on Imago's own `TaskPool` and put in its place through
/// `Configuration.Dependencies.taskPools`.
struct MutantTaskPools: TaskPoolMaking {
    let mutant: Mutant

    /// Whether `mutant` is one of these pools' bugs.
    static func plants(_ mutant: Mutant) -> Bool {
        [.shareNoCoalescing, .shareCancelOnFirstLeave, .shareLeaverKeepsPriority, .shareReusesCancelledTask].contains(mutant)
    }

    func makePool<Key: Hashable & Sendable, Value: Sendable>(_ key: Key.Type, _ value: Value.Type) -> any CoalescingPool<Key, Value> {
        switch mutant {
        case .shareNoCoalescing: NonCoalescingPool<Key, Value>()
        case .shareCancelOnFirstLeave: FirstLeaveCancelsPool<Key, Value>()
        case .shareLeaverKeepsPriority: LeaverStaysPool<Key, Value>()
        // The pipeline's tasks are handed out per request key: the decodes' pool.
        case .shareReusesCancelledTask where Key.self == ImageRequestKey.self: CancelledKeyPool<Key, Value>()
        default: TaskPool<Key, Value>()
        }
    }
}

/// `Mutant.shareNoCoalescing`: every subscriber gets work of its own (each load fetches and
/// decodes), as a pool keyed by the load instead of by what it loads.
final class NonCoalescingPool<Key: Hashable & Sendable, Value: Sendable>: CoalescingPool {
    private struct Load: Hashable, Sendable {
        let key: Key
        let id: Int
    }
    private let inner = TaskPool<Load, Value>()
    private let loads = Mutex((next: 0, live: [Key: Int]()))

    func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
               onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
               work: @escaping @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>) async -> Result<Value, ImageLoadingError> {
        let id = loads.withLock { loads in
            loads.next += 1
            loads.live[key, default: 0] += 1
            return loads.next
        }
        defer { loads.withLock { $0.live[key, default: 1] -= 1 } }
        return await inner.value(for: Load(key: key, id: id), priority: priority, onProgress: onProgress,
                                 onPreview: onPreview, work: work)
    }

    var inFlightCount: Int { inner.inFlightCount }
    func subscriberCount(for key: Key) -> Int { loads.withLock { $0.live[key] ?? 0 } }
}

/// `Mutant.shareCancelOnFirstLeave`: the first subscriber to leave takes everyone with it, so
/// the shared work stops although others still want it.
final class FirstLeaveCancelsPool<Key: Hashable & Sendable, Value: Sendable>: CoalescingPool {
    private let inner = TaskPool<Key, Value>()
    private let joined = Mutex((next: 0, tasks: [Key: [Int: Task<Result<Value, ImageLoadingError>, Never>]]()))

    func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
               onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
               work: @escaping @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>) async -> Result<Value, ImageLoadingError> {
        let inner = self.inner
        // Joins before it first suspends, as the caller would have.
        let task = Task.immediate {
            await inner.value(for: key, priority: priority, onProgress: onProgress, onPreview: onPreview, work: work)
        }
        let id = joined.withLock { joined in
            joined.next += 1
            joined.tasks[key, default: [:]][joined.next] = task
            return joined.next
        }
        defer { joined.withLock { _ = $0.tasks[key]?.removeValue(forKey: id) } }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            for other in joined.withLock({ $0.tasks[key]?.values.map { $0 } ?? [] }) { other.cancel() }
            task.cancel()
        }
    }

    var inFlightCount: Int { inner.inFlightCount }
    func subscriberCount(for key: Key) -> Int { inner.subscriberCount(for: key) }
}

/// `Mutant.shareLeaverKeepsPriority`: a subscriber that leaves gets `.cancelled` at once but its
/// subscription is never ended, so its priority keeps counting in the shared work's.
final class LeaverStaysPool<Key: Hashable & Sendable, Value: Sendable>: CoalescingPool {
    private let inner = TaskPool<Key, Value>()

    func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
               onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
               work: @escaping @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>) async -> Result<Value, ImageLoadingError> {
        let inner = self.inner
        let outcome = FirstOutcome<Value>()
        // Not a child of the caller: the caller's cancellation does not reach it.
        let subscription = Task.immediate {
            await inner.value(for: key, priority: priority, onProgress: onProgress, onPreview: onPreview, work: work)
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                outcome.wait(continuation)
                Task { outcome.deliver(await subscription.value) }
            }
        } onCancel: {
            outcome.deliver(.failure(.cancelled))
        }
    }

    var inFlightCount: Int { inner.inFlightCount }
    func subscriberCount(for key: Key) -> Int { inner.subscriberCount(for: key) }
}

/// `Mutant.shareReusesCancelledTask`: work is forgotten only when it ends with an image or an
/// error; work that everyone left is never taken for ended, so every later load of its key gets
/// its cancellation.
final class CancelledKeyPool<Key: Hashable & Sendable, Value: Sendable>: CoalescingPool {
    private let inner = TaskPool<Key, Value>()
    private let keys = Mutex((live: [Key: Int](), cancelled: Set<Key>()))

    func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
               onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
               work: @escaping @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>) async -> Result<Value, ImageLoadingError> {
        let reused = keys.withLock { keys in
            if keys.cancelled.contains(key) { return true }
            keys.live[key, default: 0] += 1
            return false
        }
        if reused { return .failure(.cancelled) }
        let outcome = await inner.value(for: key, priority: priority, onProgress: onProgress, onPreview: onPreview, work: work)
        keys.withLock { keys in
            keys.live[key, default: 1] -= 1
            if case .failure(let error) = outcome, error.isCancellation {
                if keys.live[key] == 0 { keys.cancelled.insert(key) }
            }
        }
        return outcome
    }

    var inFlightCount: Int { inner.inFlightCount }
    func subscriberCount(for key: Key) -> Int { inner.subscriberCount(for: key) }
}

/// The first of two outcomes (the work's, or the caller leaving) resumes the waiting caller.
private final class FirstOutcome<Value: Sendable>: Sendable {
    private let state = Mutex<(waiting: CheckedContinuation<Result<Value, ImageLoadingError>, Never>?,
                               early: Result<Value, ImageLoadingError>?, done: Bool)>((nil, nil, false))

    func wait(_ continuation: CheckedContinuation<Result<Value, ImageLoadingError>, Never>) {
        let early = state.withLock { state -> Result<Value, ImageLoadingError>? in
            guard let early = state.early else {
                state.waiting = continuation
                return nil
            }
            state.done = true
            return early
        }
        if let early { continuation.resume(returning: early) }
    }

    func deliver(_ outcome: Result<Value, ImageLoadingError>) {
        let waiting = state.withLock { state -> CheckedContinuation<Result<Value, ImageLoadingError>, Never>? in
            if state.done || state.early != nil { return nil }
            guard let waiting = state.waiting else {
                state.early = outcome
                return nil
            }
            state.done = true
            state.waiting = nil
            return waiting
        }
        waiting?.resume(returning: outcome)
    }
}
