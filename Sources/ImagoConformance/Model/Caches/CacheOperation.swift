/// The limits one cache sequence runs with (a `LoaderContext`'s, kept across its restarts).
struct CacheLimits: Sendable, Hashable, CustomStringConvertible {
    /// `LoaderContext.memoryCostLimit`.
    var memoryCost: Int
    /// `LoaderContext.memoryEntryCostLimit`.
    var memoryEntryCost: Int
    /// `LoaderContext.diskSizeLimit`.
    var diskSize: Int

    /// Room for a few of the pool's images in memory (the large one never fits two), and for
    /// a few payloads on disk (the largest always fits alone with its metadata).
    static let fallback = CacheLimits(memoryCost: 40_000, memoryEntryCost: 20_000, diskSize: 32_000)

    var description: String {
        "limits: memory \(memoryCost) (per entry \(memoryEntryCost)), disk \(diskSize)"
    }
}

/// One step of a cache sequence (MODEL-MEMORY, MODEL-DISK). Images are numbered in the
/// sequence's pool (`CacheSequencePool`).
enum CacheOperation: Sendable, Hashable, CustomStringConvertible {
    /// The loader is built with these limits (the first operation; when shrinking drops it, the
    /// sequence runs with `CacheLimits.fallback`).
    case begin(CacheLimits)
    /// A model of the current loader loads image `n` to its terminal phase.
    case load(Int)
    /// `MemoryCacheProbe.trim(toCost:)` to this percentage of the current total.
    case trim(percent: Int)
    /// A new loader on the same context: the app restarted (memory empty, disk kept).
    case restart
    /// `DiskCacheProbe.corruptEntry(for:)` on image `n`'s entry.
    case corrupt(Int)

    var description: String {
        switch self {
        case .begin(let limits): "begin (\(limits))"
        case .load(let image): "load image \(image)"
        case .trim(let percent): "trim memory to \(percent)% of its total"
        case .restart: "restart (a new loader on the same context)"
        case .corrupt(let image): "corrupt image \(image)'s disk entry"
        }
    }

    /// The kinds of operation a sequence draws from.
    enum Kind { case load, trim, restart, corrupt }

    /// How often each kind of operation comes, by check.
    struct Weights {
        var load: Int
        var trim: Int
        var restart: Int
        var corrupt: Int
    }

    /// A random sequence: `begin` with random limits, then operations drawn by `weights`, to a
    /// length of half `maxOperations` to `maxOperations` (at least 4). A third of the loads
    /// repeat one of the last four images loaded (hits, and recency that matters).
    static func sequence(using generator: inout SeededGenerator, maxOperations: Int, poolSize: Int,
                         weights: Weights) -> [CacheOperation] {
        let memoryCost = Int.random(in: 14_000...42_000, using: &generator)
        let entry = generator.pick([(memoryCost, 1), (min(memoryCost, 20_000), 1), (min(memoryCost, 36_863), 2)])
        let limits = CacheLimits(memoryCost: memoryCost, memoryEntryCost: entry,
                                 diskSize: Int.random(in: 24_000...40_000, using: &generator))
        var operations: [CacheOperation] = [.begin(limits)]
        var loaded: [Int] = []
        let count = Int.random(in: max(4, maxOperations / 2)...max(4, maxOperations), using: &generator)
        // The last image (the largest) comes three times as often as each other: it is the one
        // that crosses the per-entry limit and fills the caches.
        let fresh = (0..<poolSize).map { ($0, $0 == poolSize - 1 ? 3 : 1) }
        while operations.count < count {
            let kind = generator.pick([(Kind.load, weights.load), (.trim, weights.trim), (.restart, weights.restart),
                                       (.corrupt, weights.corrupt)])
            let recent = loaded.suffix(4)
            let image = recent.isEmpty || Int.random(in: 0..<3, using: &generator) > 0
                ? generator.pick(fresh) : recent.randomElement(using: &generator)!
            switch kind {
            case .load:
                operations.append(.load(image))
                loaded.append(image)
            case .trim: operations.append(.trim(percent: generator.pick([(0, 1), (25, 1), (50, 2), (75, 2)])))
            case .restart: operations.append(.restart)
            case .corrupt:
                // A loaded image's entry, loaded again at once (the repair, CACHE-4), and again
                // later, after a restart half the time (the repaired entry must be served).
                let target = recent.randomElement(using: &generator) ?? image
                operations += [.corrupt(target), .load(target)]
                if Bool.random(using: &generator) { operations.append(.restart) }
                operations.append(.load(target))
                loaded.append(target)
            }
        }
        return Array(operations.prefix(max(4, maxOperations)))
    }
}
