import Synchronization

/// Loads that will fetch a remote source and have not reached the fetch stage yet: what lets
/// `FetchAdmission` start loads submitted together in priority order rather than in the order
/// their tasks happened to run.
///
/// A load is announced when it is submitted (`ImagePipeline.imageTask(for:)` joins its work
/// before it returns, so a screen's loads are all announced before any of them runs) and arrives
/// when its source's fetch asks for a slot, or when the disk cache answers it without a fetch.
/// While a load of higher priority is on its way, fetches of lower priority wait for it: six
/// normal-priority loads whose tasks ran first would otherwise take every HTTP/1.1 slot ahead of
/// the screenful submitted before them. A load is on its way for as long as a memory miss and a
/// disk lookup take; one that ends (fails, is cancelled) without fetching leaves.
final class FetchArrivals: Sendable {
    private struct Source {
        /// Loads of the source not yet arrived, by id, with their live priorities.
        var onTheWay: [Int: @Sendable () -> ImageRequestPriority] = [:]
        /// Loads of the source that have not ended, arrived or not.
        var members: Set<Int> = []
        /// Whether the source's fetch has asked for a slot: a load joining it later is not
        /// waited for.
        var arrived = false
    }

    private struct State {
        var sources: [String: Source] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    /// Called, outside the lock, when a load that was waited for arrives or leaves: the
    /// admission judges its queue again.
    private let listener = Mutex<(@Sendable () -> Void)?>(nil)

    /// Sets what is called when a load that was waited for arrives or leaves.
    func onChange(_ body: @escaping @Sendable () -> Void) { listener.withLock { $0 = body } }

    private func changed() { listener.withLock { $0 }?() }

    /// Announces a load of `source`; its `priority` is read live. Returns the load's id, for
    /// `leave(_:id:)` when the load ends.
    func announce(_ source: String, priority: @escaping @Sendable () -> ImageRequestPriority) -> Int {
        state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            state.sources[source, default: Source()].members.insert(id)
            if state.sources[source]?.arrived == false { state.sources[source]?.onTheWay[id] = priority }
            return id
        }
    }

    /// `source`'s loads have arrived: its fetch asked for a slot, or the disk answered it.
    func arrived(_ source: String) {
        let wasWaitedFor = state.withLock { state -> Bool in
            guard var entry = state.sources[source], !entry.arrived else { return false }
            entry.arrived = true
            let hadLoads = !entry.onTheWay.isEmpty
            entry.onTheWay = [:]
            state.sources[source] = entry
            return hadLoads
        }
        if wasWaitedFor { changed() }
    }

    /// The load `id` of `source` ended.
    func leave(_ source: String, id: Int) {
        let wasWaitedFor = state.withLock { state -> Bool in
            guard var entry = state.sources[source] else { return false }
            entry.members.remove(id)
            let waited = entry.onTheWay.removeValue(forKey: id) != nil
            state.sources[source] = entry.members.isEmpty ? nil : entry
            return waited
        }
        if wasWaitedFor { changed() }
    }

    /// The highest priority of a load on its way, nil when none is.
    var highestOnTheWay: ImageRequestPriority? {
        let readers = state.withLock { $0.sources.values.flatMap { $0.onTheWay.values } }
        return readers.map { $0() }.max()
    }

    /// Loads on their way (tests use it to know every load was announced).
    var onTheWayCount: Int { state.withLock { $0.sources.values.reduce(0) { $0 + $1.onTheWay.count } } }
}
