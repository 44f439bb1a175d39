extension ConformanceCheck {
    /// MODEL-MEMORY and MODEL-DISK: the caches judged through random operation sequences (loads
    /// of distinct images of known decoded sizes, repeated loads, trims, restarts, corrupted
    /// entries, with limits chosen per sequence) against the reference caches
    /// (Sources/ImagoConformance/Model/Caches). Each divergence names the rule it breaks.
    static let modelCacheChecks: [ConformanceCheck] = [
        ConformanceCheck("MODEL-MEMORY", "Random load, hit, trim and restart sequences keep the memory cache an LRU cache within its limits.",
                         requires: .memoryCache) { run in
            try await exploreCaches(run, weights: .init(load: 10, trim: 2, restart: 1, corrupt: 0))
        },
        ConformanceCheck("MODEL-DISK", "Random load, restart and corruption sequences keep the disk cache's entries, limit and repairs.",
                         requires: .diskCache) { run in
            let trims = run.subject.capabilities.contains(.memoryCache) ? 1 : 0
            try await exploreCaches(run, weights: .init(load: 10, trim: trims, restart: 3, corrupt: 2))
        },
    ]

    @MainActor
    private static func exploreCaches(_ run: CheckRun, weights: CacheOperation.Weights) async throws {
        let pool = try CacheSequenceReplay.pool(run.images)
        let capabilities = run.subject.capabilities
        var loose: [String] = []
        if capabilities.contains(.memoryCache) { loose.append("memory costs up to 64 bytes a row over the decoded size") }
        if capabilities.contains(.diskCache) {
            loose.append("the disk cache's eviction order (by writes or by reads) and its metadata (up to "
                         + "\(ReferenceDiskCache.metadataAllowance) bytes an entry)")
        }
        run.note("judged loosely: " + loose.joined(separator: "; "))
        try await run.explore(generate: { generator, maxOperations in
            // Cache sequences reach their limits within 16 operations (eight images, limits of two to
            // five of them): longer ones add time, not situations.
            CacheOperation.sequence(using: &generator, maxOperations: min(maxOperations, 16), poolSize: pool.count,
                                    weights: weights)
        }, replay: { operations, trial in
            try await CacheSequenceReplay(run: run, pool: pool, operations: operations, trial: trial).replay(operations)
        })
    }
}
