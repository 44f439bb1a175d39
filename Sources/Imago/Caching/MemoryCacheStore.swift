/// The single-threaded heart of `MemoryCache`: a dictionary from key to node index plus one or
/// two recency lists, the limits, and the counters. `MemoryCache` wraps it in a mutex.
///
/// Eviction order is recency only (MEM-1: never cost-ordered):
/// - `.lru`: one list; the victim is its least recently used member.
/// - `.segmentedLRU`: new entries enter a probation segment; a hit there promotes the entry to a
///   protected segment (at most 80% of the cost and count limits, its overflow demoted back to
///   the front of probation). Victims come from probation's tail first, so a one-off scan of
///   new keys cycles through probation without flushing the entries that were used twice.
///
/// Evicted values are returned to the caller instead of being released here, so their
/// deinitialisers (pixel memory going back to the allocator) run outside the cache's lock.
struct MemoryCacheStore<Key: Hashable, Value> {
    let costLimit: Int
    let countLimit: Int
    let entryCostLimit: Int
    let policy: MemoryCacheEvictionPolicy

    private var pool = LRUNodePool<Key, Value>()
    private var index: [Key: Int32] = [:]
    /// The only list under `.lru`; the probation segment under `.segmentedLRU`.
    private var probation = LRUList(segment: 0)
    /// Empty under `.lru`.
    private var protected = LRUList(segment: 1)

    private(set) var hits = 0
    private(set) var misses = 0
    private(set) var evictions = 0

    init(costLimit: Int, countLimit: Int, entryCostLimit: Int,
         policy: MemoryCacheEvictionPolicy) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.entryCostLimit = entryCostLimit
        self.policy = policy
    }

    var totalCost: Int { probation.totalCost + protected.totalCost }
    var count: Int { index.count }

    /// Protected segment limits: 80% of the cache's (the common SLRU split).
    private var protectedCostLimit: Int { costLimit - costLimit / 5 }
    private var protectedCountLimit: Int { countLimit - countLimit / 5 }

    func contains(_ key: Key) -> Bool { index[key] != nil }

    /// The value for `key`, refreshing its recency on a hit.
    mutating func value(forKey key: Key) -> Value? {
        guard let node = index[key] else {
            misses += 1
            return nil
        }
        hits += 1
        touch(node)
        return pool[node].value
    }

    /// Inserts or replaces; returns false (changing nothing) when `cost` exceeds the
    /// per-entry limit. `evicted` receives the values pushed out to restore the limits, and a
    /// replaced value, so that they are released outside the cache's lock.
    mutating func insert(_ value: Value, forKey key: Key, cost: Int, evicted: inout [Value]) -> Bool {
        guard cost <= entryCostLimit else { return false }
        let node: Int32
        if let existing = index[key] {
            node = existing
            if pool[node].segment == protected.segment {
                protected.unlink(node, in: &pool)
                pool[node].cost = cost
                if let replaced = pool[node].value { evicted.append(replaced) }   // released outside the lock
                pool[node].value = value
                protected.pushFront(node, in: &pool)
                rebalanceProtected()
            } else {
                probation.unlink(node, in: &pool)
                pool[node].cost = cost
                if let replaced = pool[node].value { evicted.append(replaced) }
                pool[node].value = value
                probation.pushFront(node, in: &pool)
            }
        } else {
            node = pool.allocate(key: key, value: value, cost: cost)
            index[key] = node
            probation.pushFront(node, in: &pool)
        }
        while totalCost > costLimit || count > countLimit {
            guard let victim = victim(sparing: node) else { break }
            evicted.append(remove(node: victim))
            evictions += 1
        }
        return true
    }

    mutating func removeValue(forKey key: Key) -> Value? {
        guard let node = index[key] else { return nil }
        return remove(node: node)
    }

    /// Evicts in eviction order until the total cost is at most `cost`.
    mutating func trim(toCost cost: Int, evicted: inout [Value]) {
        while totalCost > max(cost, 0), let victim = victim(sparing: nil) {
            evicted.append(remove(node: victim))
            evictions += 1
        }
    }

    /// Empties the cache and returns every value (counters are kept).
    mutating func removeAll() -> [Value] {
        let values = pool.nodes.compactMap(\.value)
        pool.removeAll()
        index.removeAll()
        probation.reset()
        protected.reset()
        return values
    }

    /// Keys from least to most valuable (the order `trim` would evict them), for tests.
    func keysInEvictionOrder() -> [Key] {
        var keys: [Key] = []
        for list in [probation, protected] {
            var cursor = list.tail
            while cursor != -1 {
                keys.append(pool[cursor].key!)
                cursor = pool[cursor].prev
            }
        }
        return keys
    }

    // MARK: - Policy

    private mutating func touch(_ node: Int32) {
        switch policy {
        case .lru:
            probation.moveToFront(node, in: &pool)
        case .segmentedLRU:
            if pool[node].segment == protected.segment {
                protected.moveToFront(node, in: &pool)
            } else {
                probation.unlink(node, in: &pool)
                protected.pushFront(node, in: &pool)
                rebalanceProtected()
            }
        }
    }

    /// Demotes the protected segment's least recent members to the front of probation until
    /// the segment fits its share (a lone oversized member stays).
    private mutating func rebalanceProtected() {
        while protected.count > 1,
              protected.totalCost > protectedCostLimit || protected.count > protectedCountLimit,
              let demoted = protected.leastRecent {
            protected.unlink(demoted, in: &pool)
            probation.pushFront(demoted, in: &pool)
        }
    }

    /// The next entry to evict: probation's least recent, else protected's; never `spared`
    /// (the entry just inserted), so an accepted insert is always still present afterwards.
    private func victim(sparing spared: Int32?) -> Int32? {
        if let candidate = probation.leastRecent, candidate != spared { return candidate }
        if let candidate = protected.leastRecent, candidate != spared { return candidate }
        return nil
    }

    private mutating func remove(node: Int32) -> Value {
        if pool[node].segment == protected.segment {
            protected.unlink(node, in: &pool)
        } else {
            probation.unlink(node, in: &pool)
        }
        index[pool[node].key!] = nil
        return pool.free(node)!
    }
}
