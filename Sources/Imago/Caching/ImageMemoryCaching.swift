/// What `ImagePipeline` needs of its memory cache (the first level of the loading pipeline):
/// decoded images by request key, limited by cost. `MemoryCache<ImageRequestKey, DecodedImage>`
/// is the built-in one and the default (`ImagePipeline.Configuration.Dependencies.memoryCache`);
/// an app may pass its own, e.g. to share one budget with its other caches or to log evictions.
///
/// The requirements are exactly what the pipeline calls, nothing more: a lookup, an insert with
/// a cost, a trim, and the total cost the trims are computed from. Everything else a cache may
/// offer (counts, removal, statistics, limits) is the app's business and stays on its own type.
///
/// Semantics the pipeline relies on (rules MEM-1..3 of the conformance suite):
/// - `value(forKey:)` is synchronous and fast: `ImagePipeline.cachedResponse(for:)` calls it on
///   the caller's thread (the main actor for an `ImageLoadingModel`, CACHE-1), once per load.
///   A hit should count as a use for the eviction order.
/// - after every accepted `insert`, the cache is within its limits again, by evicting entries
///   it values least (MEM-1); an insert over the cache's per-entry limit is refused and evicts
///   nothing (MEM-2);
/// - `trim(toCost:)` evicts in the same order until `totalCost` is at most the target (MEM-3).
///
/// Class-bound and `Sendable`: one cache is shared by the pipeline's tasks, from any thread at
/// once, and a pipeline holds it by reference (a copy would be another, empty cache).
public protocol ImageMemoryCaching: AnyObject, Sendable {
    /// The image for `key`, or nil. Called on the hot path of every load: no allocation, no
    /// waiting on anything slower than a short lock.
    func value(forKey key: ImageRequestKey) -> DecodedImage?

    /// Keeps `image` under `key` at `cost` (its decoded size in bytes, `ImageCost.of`, always
    /// >= 0), replacing any previous image for `key`, then evicts until the limits hold.
    /// - Returns: false when the image was not kept (e.g. over the per-entry limit); the
    ///   pipeline then reports no cache store.
    @discardableResult
    func insert(_ image: DecodedImage, forKey key: ImageRequestKey, cost: Int) -> Bool

    /// Evicts, least valuable first, until `totalCost <= cost`. The pipeline calls it under
    /// memory pressure (`trimMemory`: half of `totalCost` on a warning, 0 when critical) and
    /// when a decode needs room under the live-pixel ceiling.
    func trim(toCost cost: Int)

    /// Sum of the costs of the images held now.
    var totalCost: Int { get }
}

extension MemoryCache: ImageMemoryCaching where Key == ImageRequestKey, Value == DecodedImage {}
