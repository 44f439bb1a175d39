import Imago

/// Imago's `MemoryCache`, every call handed on: each planted memory-cache bug below overrides the
/// one decision it gets wrong. `@unchecked Sendable`: its one stored property is a `let` of a
/// `Sendable` cache; it is not `final` only so that the bugs can subclass it.
class ForwardingMemoryCache: ProbedMemoryCache, @unchecked Sendable {
    let base: MemoryCache<ImageRequestKey, DecodedImage>

    init(_ base: MemoryCache<ImageRequestKey, DecodedImage>) { self.base = base }

    var costLimit: Int { base.configuration.costLimit }
    var totalCost: Int { base.totalCost }
    func value(forKey key: ImageRequestKey) -> DecodedImage? { base.value(forKey: key) }
    func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        base.insert(image, forKey: key, cost: cost)
    }
    func trim(toCost cost: Int) { base.trim(toCost: cost) }
    func contains(_ key: ImageRequestKey) -> Bool { base.contains(key) }
}

/// `Mutant.memInsertSkipsEviction`: inserts never evict; the cache is brought back within its
/// limit only by the next trim. Imago's `MemoryCache` keeps the entries and their recency, with
/// no cost or count limit of its own (the per-entry limit stays as asked).
final class DeferredEvictionMemoryCache: ForwardingMemoryCache, @unchecked Sendable {
    private let limit: Int

    init(_ configuration: MemoryCache<ImageRequestKey, DecodedImage>.Configuration) {
        limit = configuration.costLimit
        super.init(MemoryCache(configuration: .init(costLimit: .max, countLimit: .max,
                                                    entryCostLimit: configuration.entryCostLimit,
                                                    policy: configuration.policy)))
    }

    /// The limit asked for, not the unbounded one the inner cache runs with.
    override var costLimit: Int { limit }

    /// The next trim catches up: down to `cost`, and at least to the limit.
    override func trim(toCost cost: Int) { base.trim(toCost: min(cost, limit)) }
}

/// `Mutant.sourceKeyIgnoresSize`: images are kept by source alone, the target size left out of
/// the key (a cache keyed by URL), so a thumbnail and the full image of one URL take each
/// other's place and a hit may be the wrong size.
final class SourceKeyedMemoryCache: ForwardingMemoryCache, @unchecked Sendable {
    private func unsized(_ key: ImageRequestKey) -> ImageRequestKey {
        var options = key.options
        (options.maxPixelSize, options.targetSize) = (nil, nil)
        return ImageRequestKey(source: key.source, options: options)
    }

    override func value(forKey key: ImageRequestKey) -> DecodedImage? { base.value(forKey: unsized(key)) }
    override func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        base.insert(image, forKey: unsized(key), cost: cost)
    }
    override func contains(_ key: ImageRequestKey) -> Bool { base.contains(unsized(key)) }
}

/// `Mutant.memEvictsBeforeRefusing`: an insert makes room for the new image (evicting least
/// recently used entries until it would fit) before the per-entry limit is checked, so an image
/// that is then refused has already flushed entries.
final class RoomFirstMemoryCache: ForwardingMemoryCache, @unchecked Sendable {
    override func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        let room = costLimit - cost
        if base.totalCost > room { base.trim(toCost: max(room, 0)) }
        return base.insert(image, forKey: key, cost: cost)   // the per-entry limit, checked only now
    }
}

/// `Mutant.memTrimsNewestFirst`: a trim drops the most recently used entries first, the
/// eviction order read backwards.
final class NewestFirstTrimMemoryCache: ForwardingMemoryCache, @unchecked Sendable {
    override func trim(toCost cost: Int) {
        for key in base.keysInEvictionOrder().reversed() where base.totalCost > max(cost, 0) {
            base.removeValue(forKey: key)
        }
    }
}
