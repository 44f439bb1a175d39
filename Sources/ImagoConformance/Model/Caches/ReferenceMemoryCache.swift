/// The memory cache MODEL-MEMORY and MODEL-DISK hold a loader to: what `LoaderCapabilities
/// .memoryCache` declares (MEM-1..3), nothing more. Least recently used goes first, a hit
/// refreshes recency, the total is within `costLimit` after every insert (evicting only until it
/// is), an entry over `entryCostLimit` is refused without evicting anything, and `trim(toCost:)`
/// drops the least recently used until the total is at most the target. Keys are the sequence's
/// image numbers; costs are given by the caller (the decoded size the loader was seen to charge).
struct ReferenceMemoryCache {
    /// The total cost the cache may hold after an insert.
    let costLimit: Int
    /// The largest cost one entry may have.
    let entryCostLimit: Int
    /// Held entries' costs by key.
    private(set) var costs: [Int: Int] = [:]
    /// Held keys, least recently used first.
    private(set) var recency: [Int] = []

    init(costLimit: Int, entryCostLimit: Int) {
        self.costLimit = costLimit
        self.entryCostLimit = min(entryCostLimit, costLimit)
    }

    /// The sum of the held entries' costs.
    var totalCost: Int { costs.values.reduce(0, +) }

    /// Whether `key` is held (not a use).
    func contains(_ key: Int) -> Bool { costs[key] != nil }

    /// A hit: `key` becomes the most recently used.
    mutating func hit(_ key: Int) {
        guard contains(key) else { return }
        recency.removeAll { $0 == key }
        recency.append(key)
    }

    /// Inserts `key` at `cost` as the most recently used and evicts the least recently used
    /// others until the total fits. nil when refused (over the per-entry limit: nothing changes),
    /// else the keys evicted, least recently used first.
    mutating func insert(_ key: Int, cost: Int) -> [Int]? {
        guard cost <= entryCostLimit else { return nil }
        costs[key] = cost
        hit(key)
        if recency.last != key { recency.append(key) }
        return evict(toCost: costLimit, sparing: key)
    }

    /// Drops the least recently used entries until the total is at most `cost`; returns them.
    mutating func trim(toCost cost: Int) -> [Int] { evict(toCost: cost, sparing: nil) }

    /// Forgets everything (a new loader: the app restarted).
    mutating func removeAll() {
        costs = [:]
        recency = []
    }

    private mutating func evict(toCost cost: Int, sparing spared: Int?) -> [Int] {
        var evicted: [Int] = []
        while totalCost > max(cost, 0), let victim = recency.first(where: { $0 != spared }) {
            recency.removeAll { $0 == victim }
            costs[victim] = nil
            evicted.append(victim)
        }
        return evicted
    }
}
