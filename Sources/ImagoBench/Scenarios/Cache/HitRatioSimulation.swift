import Imago

/// Replays a trace against a `MemoryCache` the way the pipeline uses it: look up, and on a
/// miss insert the key with its cost.
public enum HitRatioSimulation {
    /// Hits divided by accesses, with the cache's cost limit at `costFraction` of the trace's
    /// working set and no count limit in the way.
    public static func hitRatio(_ trace: ZipfTrace, policy: MemoryCacheEvictionPolicy,
                                costFraction: Double = 0.10) -> Double {
        guard !trace.accesses.isEmpty else { return 0 }
        let limit = Int(Double(trace.workingSetCost) * costFraction)
        let cache = MemoryCache<Int, Int>(configuration: .init(
            costLimit: limit, countLimit: trace.costs.count, policy: policy))
        var hits = 0
        for key in trace.accesses {
            if cache.value(forKey: key) != nil {
                hits += 1
            } else {
                cache.insert(key, forKey: key, cost: trace.costs[key])
            }
        }
        return Double(hits) / Double(trace.accesses.count)
    }
}
