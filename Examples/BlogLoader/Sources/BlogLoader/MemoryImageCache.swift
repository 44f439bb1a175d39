/// Decoded images by request key, up to a total cost in bytes of pixels; the least recently
/// used go first when it is full.
@MainActor
public final class MemoryImageCache {
    /// Total cost the cache keeps (default 64 MiB).
    public let costLimit: Int
    /// Images costing more than this are not kept at all (default a quarter of `costLimit`).
    public let entryCostLimit: Int
    public private(set) var totalCost = 0
    private var images: [String: LoadedImage] = [:]
    /// Keys, least recently used first.
    private var recency: [String] = []

    public init(costLimit: Int = 64 << 20, entryCostLimit: Int? = nil) {
        self.costLimit = costLimit
        self.entryCostLimit = entryCostLimit ?? costLimit / 4
    }

    /// The image for `key`, which becomes the most recently used.
    public func image(forKey key: String) -> LoadedImage? {
        guard let image = images[key] else { return nil }
        recency.removeAll { $0 == key }
        recency.append(key)
        return image
    }

    public func contains(_ key: String) -> Bool { images[key] != nil }

    public func insert(_ image: LoadedImage, forKey key: String) {
        // Checked first: an image that will not be kept must not evict anything.
        guard image.cost <= entryCostLimit else { return }
        remove(key)
        images[key] = image
        recency.append(key)
        totalCost += image.cost
        trim(toCost: costLimit)
    }

    /// Drops the least recently used images until the total is at most `cost`.
    public func trim(toCost cost: Int) {
        while totalCost > cost, let oldest = recency.first { remove(oldest) }
    }

    private func remove(_ key: String) {
        guard let image = images.removeValue(forKey: key) else { return }
        totalCost -= image.cost
        recency.removeAll { $0 == key }
    }
}
