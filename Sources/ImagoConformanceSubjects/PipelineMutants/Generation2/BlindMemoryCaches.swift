@_spi(Testing) import Imago
import Synchronization

/// The generation-2 memory-cache bugs: caches of the harness's own (most around Imago's
/// `MemoryCache`), given to the pipeline as an app gives its own (`CacheMutants` asks here
/// first). Nil when the bug is not one of these.
enum BlindMemoryCaches {
    static func memoryCache(_ configuration: MemoryCache<ImageRequestKey, DecodedImage>.Configuration,
                            for mutant: Mutant?) -> (any ProbedMemoryCache)? {
        switch mutant {
        case .memReadsKeepInsertionOrder?: InsertionOrderMemoryCache(configuration)
        case .memReplaceCountsCostTwice?: RunningTotalMemoryCache(configuration)
        case .memInsertsWithoutCost?: CostlessMemoryCache(MemoryCache(configuration: configuration))
        case .memTrimSparesNewest?: NewestSparingMemoryCache(MemoryCache(configuration: configuration))
        case .cacheDiskHitNotPromoted?: NetworkOnlyMemoryCache(MemoryCache(configuration: configuration), diskReads: DiskReads.handOver())
        default: nil
        }
    }
}

/// `Mutant.memReadsKeepInsertionOrder`: a dictionary and an array of keys in insertion order
/// (FIFO): a read never moves its key, so the image used most is evicted as soon as it is oldest.
final class InsertionOrderMemoryCache: ProbedMemoryCache, @unchecked Sendable {
    private struct State {
        var entries: [ImageRequestKey: (image: DecodedImage, cost: Int)] = [:]
        var order: [ImageRequestKey] = []
        var total = 0

        mutating func evict(while over: (State) -> Bool) {
            while over(self), !order.isEmpty {
                let oldest = order.removeFirst()
                total -= entries.removeValue(forKey: oldest)?.cost ?? 0
            }
        }
    }
    private let state = Mutex(State())
    private let configuration: MemoryCache<ImageRequestKey, DecodedImage>.Configuration

    init(_ configuration: MemoryCache<ImageRequestKey, DecodedImage>.Configuration) { self.configuration = configuration }

    var costLimit: Int { configuration.costLimit }
    var totalCost: Int { state.withLock { $0.total } }
    func value(forKey key: ImageRequestKey) -> DecodedImage? { state.withLock { $0.entries[key]?.image } }
    func contains(_ key: ImageRequestKey) -> Bool { state.withLock { $0.entries[key] != nil } }

    func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        guard cost <= configuration.entryCostLimit else { return false }
        let (costLimit, countLimit) = (configuration.costLimit, configuration.countLimit)
        state.withLock { state in
            if let old = state.entries[key] {
                state.total -= old.cost
                state.order.removeAll { $0 == key }
            }
            state.entries[key] = (image, cost)
            state.order.append(key)
            state.total += cost
            state.evict { $0.total > costLimit || $0.order.count > countLimit }
        }
        return true
    }

    func trim(toCost cost: Int) { state.withLock { $0.evict { $0.total > max(cost, 0) } } }
}

/// `Mutant.memReplaceCountsCostTwice`: the cache keeps a running total of its own; a replacement
/// adds the new cost and never takes the old one off, and eviction (least recently used first,
/// from Imago's cache, which holds the entries with no limit of its own) goes by that total.
final class RunningTotalMemoryCache: ForwardingMemoryCache, @unchecked Sendable {
    private let limit: Int
    private let counted = Mutex((total: 0, costs: [ImageRequestKey: Int]()))

    init(_ configuration: MemoryCache<ImageRequestKey, DecodedImage>.Configuration) {
        limit = configuration.costLimit
        super.init(MemoryCache(configuration: .init(costLimit: .max, countLimit: configuration.countLimit,
                                                    entryCostLimit: configuration.entryCostLimit,
                                                    policy: configuration.policy)))
    }

    override var costLimit: Int { limit }
    override var totalCost: Int { counted.withLock { $0.total } }

    override func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        guard base.insert(image, forKey: key, cost: cost) else { return false }
        counted.withLock { counted in
            counted.total += cost   // the replaced entry's cost stays counted
            counted.costs[key] = cost
        }
        trim(toCost: limit)
        return true
    }

    override func trim(toCost cost: Int) {
        for key in base.keysInEvictionOrder() where totalCost > max(cost, 0) {
            base.removeValue(forKey: key)
            counted.withLock { $0.total -= $0.costs.removeValue(forKey: key) ?? 0 }
        }
    }
}

/// `Mutant.memInsertsWithoutCost`: every image is inserted with cost 0, so the cost limit (and
/// the per-entry limit) never applies; only the count limit evicts.
final class CostlessMemoryCache: ForwardingMemoryCache, @unchecked Sendable {
    override func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        base.insert(image, forKey: key, cost: 0)
    }
}

/// `Mutant.memTrimSparesNewest`: a trim never evicts the most recently used entry (the image
/// probably on screen), whatever cost it is asked to reach.
final class NewestSparingMemoryCache: ForwardingMemoryCache, @unchecked Sendable {
    override func trim(toCost cost: Int) {
        for key in base.keysInEvictionOrder().dropLast() where base.totalCost > max(cost, 0) {
            base.removeValue(forKey: key)
        }
    }
}

/// `Mutant.cacheDiskHitNotPromoted`: images read from the disk cache are refused (the app fills
/// its memory cache only where network responses complete). The disk cache made next to it
/// (`BlindDiskCaches`) records the keys it answered in `diskReads`.
final class NetworkOnlyMemoryCache: ForwardingMemoryCache, @unchecked Sendable {
    private let diskReads: DiskReads

    init(_ base: MemoryCache<ImageRequestKey, DecodedImage>, diskReads: DiskReads) {
        self.diskReads = diskReads
        super.init(base)
    }

    override func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool {
        if diskReads.take(key.source) { return false }
        return base.insert(image, forKey: key, cost: cost)
    }
}

/// The disk keys a disk cache answered since the memory cache last asked, shared by the two
/// caches of one loader: the memory cache is made first and leaves it in `pending` for the disk
/// cache made right after it (`ImagoLoader` makes both, in that order, on the main actor).
final class DiskReads: Sendable {
    private let keys = Mutex<[String: Int]>([:])
    private static let pending = Mutex<DiskReads?>(nil)

    /// A new record, left for the next disk cache made.
    static func handOver() -> DiskReads {
        let reads = DiskReads()
        pending.withLock { $0 = reads }
        return reads
    }

    /// The record the last memory cache made, if it is not taken yet.
    static func take() -> DiskReads? { pending.withLock { $0.take() } }

    func record(_ key: String) { keys.withLock { $0[key, default: 0] += 1 } }

    /// Whether `key` was read from disk (and not yet taken).
    func take(_ key: String) -> Bool {
        keys.withLock { keys in
            guard let count = keys[key] else { return false }
            keys[key] = count > 1 ? count - 1 : nil
            return true
        }
    }
}
