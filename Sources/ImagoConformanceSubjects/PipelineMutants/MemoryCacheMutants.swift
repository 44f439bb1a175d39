import Imago

/// `Mutant.memInsertSkipsEviction`: inserts never evict; the cache is brought back within its
/// limit only by the next trim. Imago's `MemoryCache` keeps the entries and their recency, with
/// no cost or count limit of its own (the per-entry limit stays as asked).
final class DeferredEvictionMemoryCache: ProbedMemoryCache {
    private let base: MemoryCache<ImageRequestKey, DecodedImage>
    let costLimit: Int

    init(_ configuration: MemoryCache<ImageRequestKey, DecodedImage>.Configuration) {
        costLimit = configuration.costLimit
        base = MemoryCache(configuration: .init(costLimit: .max, countLimit: .max,
                                                entryCostLimit: configuration.entryCostLimit,
                                                policy: configuration.policy))
    }

    func value(forKey key: ImageRequestKey) -> DecodedImage? { base.value(forKey: key) }

    func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        base.insert(image, forKey: key, cost: cost)   // over the limit until the next trim
    }

    /// The next trim catches up: down to `cost`, and at least to the limit.
    func trim(toCost cost: Int) { base.trim(toCost: min(cost, costLimit)) }

    var totalCost: Int { base.totalCost }
    func contains(_ key: ImageRequestKey) -> Bool { base.contains(key) }
}

/// `Mutant.sourceKeyIgnoresSize`: images are kept by source alone, the target size left out of
/// the key (a cache keyed by URL), so a thumbnail and the full image of one URL take each
/// other's place and a hit may be the wrong size.
final class SourceKeyedMemoryCache: ProbedMemoryCache {
    private let base: MemoryCache<ImageRequestKey, DecodedImage>

    init(_ base: MemoryCache<ImageRequestKey, DecodedImage>) { self.base = base }

    var costLimit: Int { base.configuration.costLimit }

    private func unsized(_ key: ImageRequestKey) -> ImageRequestKey {
        var options = key.options
        (options.maxPixelSize, options.targetSize) = (nil, nil)
        return ImageRequestKey(source: key.source, options: options)
    }

    func value(forKey key: ImageRequestKey) -> DecodedImage? { base.value(forKey: unsized(key)) }

    func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        base.insert(image, forKey: unsized(key), cost: cost)
    }

    func trim(toCost cost: Int) { base.trim(toCost: cost) }
    var totalCost: Int { base.totalCost }
    func contains(_ key: ImageRequestKey) -> Bool { base.contains(unsized(key)) }
}

/// `Mutant.memEvictsBeforeRefusing`: an insert makes room for the new image (evicting least
/// recently used entries until it would fit) before the per-entry limit is checked, so an image
/// that is then refused has already flushed entries.
final class RoomFirstMemoryCache: ProbedMemoryCache {
    private let base: MemoryCache<ImageRequestKey, DecodedImage>

    init(_ base: MemoryCache<ImageRequestKey, DecodedImage>) { self.base = base }

    var costLimit: Int { base.configuration.costLimit }

    func value(forKey key: ImageRequestKey) -> DecodedImage? { base.value(forKey: key) }

    func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        let room = costLimit - cost
        if base.totalCost > room { base.trim(toCost: max(room, 0)) }
        return base.insert(image, forKey: key, cost: cost)   // the per-entry limit, checked only now
    }

    func trim(toCost cost: Int) { base.trim(toCost: cost) }
    var totalCost: Int { base.totalCost }
    func contains(_ key: ImageRequestKey) -> Bool { base.contains(key) }
}

/// `Mutant.memTrimsNewestFirst`: a trim drops the most recently used entries first, the
/// eviction order read backwards.
final class NewestFirstTrimMemoryCache: ProbedMemoryCache {
    private let base: MemoryCache<ImageRequestKey, DecodedImage>

    init(_ base: MemoryCache<ImageRequestKey, DecodedImage>) { self.base = base }

    var costLimit: Int { base.configuration.costLimit }

    func value(forKey key: ImageRequestKey) -> DecodedImage? { base.value(forKey: key) }

    func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        base.insert(image, forKey: key, cost: cost)
    }

    func trim(toCost cost: Int) {
        for key in base.keysInEvictionOrder().reversed() where base.totalCost > max(cost, 0) {
            base.removeValue(forKey: key)
        }
    }

    var totalCost: Int { base.totalCost }
    func contains(_ key: ImageRequestKey) -> Bool { base.contains(key) }
}
