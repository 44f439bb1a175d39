/// Readings the checks take of a memory cache probe in one go, now that its requirements are
/// `async` (an actor-based cache answers each with a hop).
extension MemoryCacheProbe {
    /// Whether the cache holds each of `sources`, in order.
    func holds(_ sources: [ConformanceSource]) async -> [Bool] {
        var held: [Bool] = []
        for source in sources { held.append(await contains(source)) }
        return held
    }
}
