@_spi(Testing) import Imago
import Synchronization

/// The generation-2 bugs in how identical loads share work: pools built on Imago's own
/// `TaskPool`, put in its place through `Configuration.Dependencies.taskPools`, as
/// `MutantTaskPools` does for generation 1.
struct BlindTaskPools: TaskPoolMaking {
    let mutant: Mutant

    /// Whether `mutant` is one of these pools' bugs.
    static func plants(_ mutant: Mutant) -> Bool {
        [.sourceDecodeCoalescedByURL, .shareFirstSubscriberOwnsWork, .sharePriorityFixedAtFirstJoin,
         .shareCancelledWorkKeptUntilUnwound].contains(mutant)
    }

    func makePool<Key: Hashable & Sendable, Value: Sendable>(_ key: Key.Type, _ value: Value.Type) -> any CoalescingPool<Key, Value> {
        switch mutant {
        case .sourceDecodeCoalescedByURL: URLCoalescingPool<Key, Value>()
        case .shareFirstSubscriberOwnsWork: OwnedWorkPool<Key, Value>()
        case .sharePriorityFixedAtFirstJoin: FirstPriorityPool<Key, Value>()
        case .shareCancelledWorkKeptUntilUnwound: UnwindingWorkPool<Key, Value>()
        default: TaskPool<Key, Value>()
        }
    }
}

/// `Mutant.sourceDecodeCoalescedByURL`: request keys are coalesced by their source alone (the
/// target size left out), so loads of one URL at two sizes share one decode. Other keys (the
/// fetch stage's, by source already) are as they are.
final class URLCoalescingPool<Key: Hashable & Sendable, Value: Sendable>: CoalescingPool {
    private let inner = TaskPool<Key, Value>()

    private static func coalesced(_ key: Key) -> Key {
        guard let request = key as? ImageRequestKey else { return key }
        var options = request.options
        (options.maxPixelSize, options.targetSize) = (nil, nil)
        return ImageRequestKey(source: request.source, options: options) as? Key ?? key
    }

    func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
               onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
               work: @escaping @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>) async -> Result<Value, ImageLoadingError> {
        await inner.value(for: Self.coalesced(key), priority: priority, onProgress: onProgress, onPreview: onPreview, work: work)
    }

    var inFlightCount: Int { inner.inFlightCount }
    func subscriberCount(for key: Key) -> Int { inner.subscriberCount(for: Self.coalesced(key)) }
}

/// `Mutant.shareFirstSubscriberOwnsWork`: the subscriber that started a key's work owns it;
/// when the owner leaves, every subscriber of the key is cancelled with it (the shared task was
/// made a child of the first caller's).
final class OwnedWorkPool<Key: Hashable & Sendable, Value: Sendable>: CoalescingPool {
    private struct Subscribers {
        var next = 0
        var owner: [Key: Int] = [:]
        var tasks: [Key: [Int: Task<Result<Value, ImageLoadingError>, Never>]] = [:]
    }
    private let inner = TaskPool<Key, Value>()
    private let joined = Mutex(Subscribers())

    func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
               onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
               work: @escaping @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>) async -> Result<Value, ImageLoadingError> {
        let inner = self.inner
        let task = Task.immediate {
            await inner.value(for: key, priority: priority, onProgress: onProgress, onPreview: onPreview, work: work)
        }
        let id = joined.withLock { joined in
            joined.next += 1
            if joined.tasks[key, default: [:]].isEmpty { joined.owner[key] = joined.next }
            joined.tasks[key, default: [:]][joined.next] = task
            return joined.next
        }
        defer {
            joined.withLock { joined in
                joined.tasks[key]?.removeValue(forKey: id)
                if joined.tasks[key]?.isEmpty ?? true { (joined.tasks[key], joined.owner[key]) = (nil, nil) }
            }
        }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            let everyone = joined.withLock { $0.owner[key] == id ? Array(($0.tasks[key] ?? [:]).values) : [] }
            for other in everyone { other.cancel() }
            task.cancel()
        }
    }

    var inFlightCount: Int { inner.inFlightCount }
    func subscriberCount(for key: Key) -> Int { inner.subscriberCount(for: key) }
}

/// `Mutant.sharePriorityFixedAtFirstJoin`: every subscriber of a key's work is given the first
/// subscriber's priority, so the work runs at that one's, however urgent a later one is.
final class FirstPriorityPool<Key: Hashable & Sendable, Value: Sendable>: CoalescingPool {
    private let inner = TaskPool<Key, Value>()
    private let first = Mutex<[Key: (priority: @Sendable () -> ImageRequestPriority, subscribers: Int)]>([:])

    func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
               onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
               work: @escaping @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>) async -> Result<Value, ImageLoadingError> {
        let shared = first.withLock { first in
            let entry = first[key] ?? (priority, 0)
            first[key] = (entry.priority, entry.subscribers + 1)
            return entry.priority
        }
        defer {
            first.withLock { first in
                guard let entry = first[key] else { return }
                first[key] = entry.subscribers > 1 ? (entry.priority, entry.subscribers - 1) : nil
            }
        }
        return await inner.value(for: key, priority: shared, onProgress: onProgress, onPreview: onPreview, work: work)
    }

    var inFlightCount: Int { inner.inFlightCount }
    func subscriberCount(for key: Key) -> Int { inner.subscriberCount(for: key) }
}

/// `Mutant.shareCancelledWorkKeptUntilUnwound`: the pool's entry for a key goes when the work
/// has returned (the removal is in the work's `defer`), not when its last subscriber leaves, so
/// a subscriber joining while cancelled work unwinds gets that work's cancellation.
final class UnwindingWorkPool<Key: Hashable & Sendable, Value: Sendable>: CoalescingPool {
    private struct Entry {
        var subscribers = 0
        var abandoned = false
    }
    private let inner = TaskPool<Key, Value>()
    private let entries = Mutex<[Key: Entry]>([:])

    func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
               onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
               work: @escaping @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>) async -> Result<Value, ImageLoadingError> {
        let joinsAbandoned = entries.withLock { entries in
            if entries[key]?.abandoned == true { return true }
            entries[key, default: Entry()].subscribers += 1
            return false
        }
        if joinsAbandoned { return .failure(.cancelled) }
        let outcome = await inner.value(for: key, priority: priority, onProgress: onProgress, onPreview: onPreview) { [self] shared in
            defer { self.entries.withLock { _ = $0.removeValue(forKey: key) } }
            return await work(shared)
        }
        entries.withLock { entries in
            guard var entry = entries[key] else { return }   // the work has already returned
            entry.subscribers -= 1
            if entry.subscribers == 0, case .failure(let error) = outcome, error.isCancellation { entry.abandoned = true }
            entries[key] = entry.subscribers == 0 && !entry.abandoned ? nil : entry
        }
        return outcome
    }

    var inFlightCount: Int { inner.inFlightCount }
    func subscriberCount(for key: Key) -> Int { inner.subscriberCount(for: key) }
}
