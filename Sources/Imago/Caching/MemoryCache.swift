import Foundation
import Synchronization

/// How `MemoryCache` picks what to evict. Both orders are by recency, never by cost (MEM-1).
public enum MemoryCacheEvictionPolicy: Sendable, Equatable {
    /// Least recently used first. The baseline, and the default.
    case lru
    /// Segmented LRU: a probation segment (new entries) and a protected segment (entries hit at
    /// least once since insertion, at most 80% of the limits). Victims come from probation
    /// first, so a scan of one-off keys does not flush the working set; on skewed traces with
    /// scans its hit ratio beats plain LRU.
    case segmentedLRU
}

/// A synchronous, thread-safe, cost- and count-limited in-memory cache (the first level of the
/// loading pipeline; a hit there is what makes CACHE-1's synchronous success possible).
///
/// Lookups, inserts and removals are O(1): a dictionary from key to a node in an intrusive
/// doubly linked recency list. One mutex guards the state; the critical sections are a few
/// array writes, and evicted values are released after the lock is dropped.
///
/// Guarantees (rules MEM-1..3):
/// - after every insert, `totalCost <= costLimit` and `count <= countLimit`, reached by evicting
///   the least recently used entries (or per `policy`), never by cost;
/// - an insert whose cost exceeds `entryCostLimit` is refused and evicts nothing;
/// - `trim(toCost:)` evicts in the same order and leaves the cache consistent.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The eviction orders, ``MemoryCacheEvictionPolicy``, under the cache's name.
    public typealias EvictionPolicy = MemoryCacheEvictionPolicy

    /// The cache's limits and eviction order, fixed at `init`; negative limits are read as 0.
    public struct Configuration: Sendable, Equatable {
        /// Most total cost held (default `MemoryCache.defaultCostLimit`: a tenth of the
        /// effective memory limit, at most 512 MiB). For images the cost is the decoded size in bytes.
        public var costLimit: Int
        /// Most entries held (default 1000), which bounds bookkeeping for many tiny images.
        public var countLimit: Int
        /// Largest cost a single entry may have (default `costLimit / 4`): one huge image must
        /// not flush everything else; it is simply not cached (MEM-2). Clamped to `costLimit`.
        public var entryCostLimit: Int
        /// Eviction order (default `.lru`).
        public var policy: EvictionPolicy

        /// - Parameters:
        ///   - costLimit: Most total cost held (default `MemoryCache.defaultCostLimit`).
        ///   - countLimit: Most entries held (default 1000).
        ///   - entryCostLimit: Largest cost of one entry; nil (the default) means `costLimit / 4`.
        ///   - policy: Eviction order (default `.lru`).
        public init(costLimit: Int = MemoryCache.defaultCostLimit,
                    countLimit: Int = 1000,
                    entryCostLimit: Int? = nil,
                    policy: EvictionPolicy = .lru) {
            self.costLimit = max(costLimit, 0)
            self.countLimit = max(countLimit, 0)
            self.entryCostLimit = min(max(entryCostLimit ?? self.costLimit / 4, 0), self.costLimit)
            self.policy = policy
        }
    }

    /// `min(L / 10, 512 MiB)` of the effective memory limit `L` (`MemoryBudgets`): enough for
    /// a screenful of full-size photos on a desktop, a bounded share of a container's limit.
    public static var defaultCostLimit: Int { MemoryBudgets.current.memoryCacheCostLimit }

    /// The limits and policy the cache was made with (the defaults resolved).
    public let configuration: Configuration
    private let store: Mutex<MemoryCacheStore<Key, Value>>

    /// An empty cache with `configuration` (default: ``defaultCostLimit``, 1000 entries, a
    /// quarter of the cost limit per entry, LRU).
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.store = Mutex(MemoryCacheStore(
            costLimit: configuration.costLimit, countLimit: configuration.countLimit,
            entryCostLimit: configuration.entryCostLimit, policy: configuration.policy))
    }

    /// The value for `key`, or nil. A hit makes the entry the most recently used.
    public func value(forKey key: Key) -> Value? {
        store.withLock { $0.value(forKey: key) }
    }

    /// Stores `value` under `key` with `cost` (must be >= 0), replacing any previous value and
    /// its cost, and evicts least recently used entries until both limits hold again. The new
    /// entry itself is never evicted by its own insert.
    /// - Returns: false when `cost > entryCostLimit`: nothing is stored, nothing is evicted,
    ///   and an existing value for `key` is left as it was.
    @discardableResult
    public func insert(_ value: Value, forKey key: Key, cost: Int) -> Bool {
        precondition(cost >= 0, "MemoryCache cost must not be negative")
        var evicted: [Value] = []
        let inserted = store.withLock { $0.insert(value, forKey: key, cost: cost, evicted: &evicted) }
        withExtendedLifetime(evicted) {}   // released here, outside the lock
        return inserted
    }

    /// Removes and returns the value for `key` (not counted as an eviction).
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        store.withLock { $0.removeValue(forKey: key) }
    }

    /// Evicts entries, least valuable first, until `totalCost <= cost`: the memory-pressure
    /// hook (MEM-3). `trim(toCost: 0)` empties the cache through the eviction path.
    public func trim(toCost cost: Int) {
        var evicted: [Value] = []
        store.withLock { $0.trim(toCost: cost, evicted: &evicted) }
        withExtendedLifetime(evicted) {}
    }

    /// Removes every entry (not counted as evictions; the counters are kept).
    public func removeAll() {
        let values = store.withLock { $0.removeAll() }
        withExtendedLifetime(values) {}
    }

    /// Whether `key` is present, without refreshing its recency or counting a hit or miss.
    public func contains(_ key: Key) -> Bool {
        store.withLock { $0.contains(key) }
    }

    /// Sum of the costs of the entries present.
    public var totalCost: Int { store.withLock { $0.totalCost } }
    /// Number of entries present.
    public var count: Int { store.withLock { $0.count } }
    /// Lookups through `value(forKey:)` that found a value.
    public var hits: Int { store.withLock { $0.hits } }
    /// Lookups through `value(forKey:)` that found nothing.
    public var misses: Int { store.withLock { $0.misses } }
    /// Entries removed to make room (inserts) or by `trim(toCost:)`.
    public var evictions: Int { store.withLock { $0.evictions } }

    /// Keys in the order they would be evicted (first = next victim). O(n); for tests and
    /// diagnostics.
    public func keysInEvictionOrder() -> [Key] {
        store.withLock { $0.keysInEvictionOrder() }
    }
}
