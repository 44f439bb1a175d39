import Synchronization

/// What the pipeline needs of a pool that coalesces identical work: `TaskPool`, or (for the
/// mutation harness) an alternative that shares work differently, put in place through
/// `Configuration.Dependencies.taskPools`.
@_spi(Testing) public protocol CoalescingPool<Key, Value>: Sendable {
    associatedtype Key: Hashable & Sendable
    associatedtype Value: Sendable

    /// Joins (or starts) the work for `key`; see `TaskPool.value(for:priority:onProgress:onPreview:work:)`.
    func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
               onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
               work: @escaping @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>) async
        -> Result<Value, ImageLoadingError>
    /// Shared work in flight plus subscribers about to join (0 once every load has ended).
    var inFlightCount: Int { get }
    /// Subscribers of the work running for `key` (0 when none runs).
    func subscriberCount(for key: Key) -> Int
}

/// Makes the pipeline's two pools (decodes by request key, stored fetches by source).
@_spi(Testing) public protocol TaskPoolMaking: Sendable {
    func makePool<Key: Hashable & Sendable, Value: Sendable>(_ key: Key.Type, _ value: Value.Type) -> any CoalescingPool<Key, Value>
}

/// The pools Imago uses: `TaskPool`s.
@_spi(Testing) public struct StandardTaskPools: TaskPoolMaking {
    public init() {}

    public func makePool<Key: Hashable & Sendable, Value: Sendable>(_ key: Key.Type, _ value: Value.Type) -> any CoalescingPool<Key, Value> {
        TaskPool<Key, Value>()
    }
}

/// Coalesces identical work. The first subscriber for a key starts the work; later ones join
/// it; all receive the same result. A subscriber that leaves (task cancelled) gets `.cancelled`
/// at once; the work itself is cancelled only when its last subscriber leaves, and it is then
/// removed from the pool, so a subscriber joining afterwards starts fresh work and never
/// receives the torn-down work's cancellation (SHARE-3, SHARE-4).
@_spi(Testing) public final class TaskPool<Key: Hashable & Sendable, Value: Sendable>: CoalescingPool {
    public typealias Outcome = Result<Value, ImageLoadingError>
    public typealias Work = @Sendable (SharedWork) async -> Outcome

    private final class Entry: @unchecked Sendable {   // mutated only under `state`'s lock
        var subscribers: [Int: CheckedContinuation<Outcome, Never>] = [:]
        var task: Task<Void, Never>?
        let shared = SharedWork()
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var nextSubscriber = 0
        /// Subscribers that have an id but have not joined yet; a cancel removes the id, which
        /// tells `join` the subscriber is already gone.
        var pending: Set<Int> = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Shared work in flight plus subscribers about to join: 0 once every load has ended
    /// (the fault soak checks that nothing is left behind).
    public var inFlightCount: Int { state.withLock { $0.entries.count + $0.pending.count } }

    /// Subscribers of the work running for `key` (0 when none runs): tests use it to see who
    /// has joined.
    public func subscriberCount(for key: Key) -> Int { state.withLock { $0.entries[key]?.subscribers.count ?? 0 } }

    /// Joins (or starts) the work for `key`; `onProgress` hears the shared fetch's progress.
    /// `priority` is read live: the subscriber may change it while it waits (SHARE-5).
    public func value(for key: Key, priority: @escaping @Sendable () -> ImageRequestPriority,
                      onProgress: (@Sendable (FetchProgress) -> Void)? = nil,
                      onPreview: (@Sendable (ImagePreview) -> Void)? = nil, work: @escaping Work) async -> Outcome {
        let id = state.withLock { state -> Int in
            state.nextSubscriber += 1
            state.pending.insert(state.nextSubscriber)
            return state.nextSubscriber
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                join(key: key, id: id, priority: priority, onProgress: onProgress, onPreview: onPreview,
                     continuation: continuation, work: work)
            }
        } onCancel: {
            leave(key: key, id: id)
        }
    }

    private func join(key: Key, id: Int, priority: @escaping @Sendable () -> ImageRequestPriority,
                      onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)?,
                      continuation: CheckedContinuation<Outcome, Never>, work: @escaping Work) {
        let cancelled = state.withLock { state -> Bool in
            if state.pending.remove(id) == nil { return true }
            let existing = state.entries[key]
            let entry = existing ?? Entry()
            // Subscribe before the work starts: a task started first could read the shared
            // priority (or report progress) while it still has no subscriber.
            entry.subscribers[id] = continuation
            entry.shared.subscribe(id, priority: priority, onProgress: onProgress, onPreview: onPreview)
            if existing == nil {
                state.entries[key] = entry
                let shared = entry.shared
                let pending = PendingWork(work)
                entry.task = Task(priority: priority().taskPriority) { [weak self] in
                    // The work closure (and the pipeline it captures) is dropped before the
                    // outcome is delivered, so a caller that lets go of its pipeline right after
                    // the result frees it, and its cache, on its own thread (MEM-5).
                    self?.complete(key: key, entry: entry, outcome: await pending.run(shared))
                }
            }
            return false
        }
        if cancelled { continuation.resume(returning: .failure(.cancelled)) }
    }

    private func leave(key: Key, id: Int) {
        let leaving = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard let entry = state.entries[key], let subscriber = entry.subscribers.removeValue(forKey: id) else {
                state.pending.remove(id)   // not joined yet: join() will see it gone
                return nil
            }
            entry.shared.unsubscribe(id)
            if entry.subscribers.isEmpty {
                state.entries[key] = nil
                entry.task?.cancel()
            }
            return subscriber
        }
        leaving?.resume(returning: .failure(.cancelled))
    }

    /// Delivers `outcome`, handing the last subscriber the task's own copy: the finishing task
    /// then keeps no reference to the value (an image, a body) once its subscribers have it.
    private func complete(key: Key, entry: Entry, outcome: consuming Outcome) {
        var waiting = state.withLock { state -> [CheckedContinuation<Outcome, Never>] in
            if state.entries[key] === entry { state.entries[key] = nil }
            let continuations = Array(entry.subscribers.values)
            entry.subscribers.removeAll()
            return continuations
        }
        guard let last = waiting.popLast() else { return }
        for continuation in waiting { continuation.resume(returning: copy outcome) }
        last.resume(returning: consume outcome)
    }
}

/// The work of one pool entry, run once and then forgotten: `run` releases the closure (and
/// whatever it captured) as soon as it returns, not when the task object goes away.
private final class PendingWork<Value: Sendable>: Sendable {
    typealias Work = @Sendable (SharedWork) async -> Result<Value, ImageLoadingError>
    private let work: Mutex<Work?>

    init(_ work: @escaping Work) { self.work = Mutex(work) }

    func run(_ shared: SharedWork) async -> Result<Value, ImageLoadingError> {
        guard let body = work.withLock({ $0.take() }) else { return .failure(.cancelled) }
        return await body(shared)
    }
}

/// What running work shares with its subscribers: their highest priority, computed from
/// their live priorities each time it is read (SHARE-5; the stage limiters order their queues by
/// it, so a subscriber leaving or lowering its priority counts at the next admission), and the
/// progress and preview observers of those still subscribed.
@_spi(Testing) public final class SharedWork: Sendable {
    private struct Subscriber {
        let priority: @Sendable () -> ImageRequestPriority
        let onProgress: (@Sendable (FetchProgress) -> Void)?
        let onPreview: (@Sendable (ImagePreview) -> Void)?
    }
    private let subscribers = Mutex<[Int: Subscriber]>([:])

    /// The highest live priority among the subscribers; `.veryLow` once all have left.
    var priority: ImageRequestPriority {
        let readers = subscribers.withLock { $0.values.map(\.priority) }
        return readers.map { $0() }.max() ?? .veryLow
    }

    func subscribe(_ id: Int, priority: @escaping @Sendable () -> ImageRequestPriority,
                   onProgress: (@Sendable (FetchProgress) -> Void)?, onPreview: (@Sendable (ImagePreview) -> Void)? = nil) {
        subscribers.withLock { $0[id] = Subscriber(priority: priority, onProgress: onProgress, onPreview: onPreview) }
    }

    func unsubscribe(_ id: Int) {
        _ = subscribers.withLock { $0.removeValue(forKey: id) }
    }

    func report(_ progress: FetchProgress) {
        for observer in subscribers.withLock({ $0.values.compactMap(\.onProgress) }) { observer(progress) }
    }

    /// Whether any subscriber still listens for previews (none: rendering one is wasted work).
    var wantsPreviews: Bool { subscribers.withLock { $0.values.contains { $0.onPreview != nil } } }

    func report(_ preview: ImagePreview) {
        for observer in subscribers.withLock({ $0.values.compactMap(\.onPreview) }) { observer(preview) }
    }
}

extension ImageRequestPriority {
    var taskPriority: TaskPriority {
        switch self {
        case .veryLow, .low: .low
        case .normal: .medium
        case .high, .veryHigh: .high
        }
    }
}
