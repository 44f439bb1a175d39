import Foundation

/// What a check asks to load: a URL (nil for "no source") and an optional target size.
public struct ConformanceSource: Sendable, Hashable, CustomStringConvertible {
    /// The image's URL on the suite's loopback server (the check's own path prefix).
    public var url: URL
    /// Longest side of the output in pixels (default nil: full size). Part of the key (SOURCE-3).
    public var maxPixelSize: Int?

    /// A source for `url` at full size, or scaled to fit `maxPixelSize` on its longest side.
    public init(url: URL, maxPixelSize: Int? = nil) {
        self.url = url
        self.maxPixelSize = maxPixelSize
    }

    /// The URL's path, then `@` and the size when one is asked, e.g. `/cache-1/small.png@32`: how
    /// steps and evidence name a source.
    public var description: String { url.path + (maxPixelSize.map { "@\($0)" } ?? "") }
}

/// One loader instance with its own caches: what a check drives. All calls are on the main
/// actor, where models publish.
///
/// What must be synchronous is the model's side (`ModelUnderTest`: its `phase`, and what
/// `load()`, `cancel()`, `retry()` and `setSource(_:)` publish before returning, a memory hit
/// included: CACHE-1 is a rule about `load()`). The counters and probes the checks read between
/// steps are `async`: an actor-based loader answers them with an `await` on its actor, and a
/// synchronous implementation (a plain property or method) satisfies them as it is.
@MainActor
public protocol LoaderUnderTest: AnyObject {
    /// A new model (one displayed image) for `source`; it must not start loading by itself.
    func makeModel(source: ConformanceSource?) -> any ModelUnderTest
    /// Decodes performed so far by this loader instance (read between steps; may be answered
    /// asynchronously).
    var decodeCount: Int { get async }
    /// Present when the loader declares `.memoryCache`.
    var memoryCache: (any MemoryCacheProbe)? { get }
    /// Present when the loader declares `.diskCache`.
    var diskCache: (any DiskCacheProbe)? { get }
    /// Loads waiting for a network slot (required with `.priorities`; otherwise nil); may be
    /// answered asynchronously (SHARE-5 polls it).
    var queuedFetchCount: Int? { get async }
    /// Present when the loader declares `.memoryPressure` (MEM-4); default nil.
    var memoryPressure: (any MemoryPressureProbe)? { get }
    /// What MEM-5 can see of the loader beyond the adapter (optional); default nil.
    var lifetime: (any LifetimeProbe)? { get }
}

/// The view model of one displayed image. What the checks require of each call is stated on it
/// (rule IDs from Docs/phase-rules.md); an adapter forwards each call to the model's own
/// operation and must not add behaviour of its own.
@MainActor
public protocol ModelUnderTest: AnyObject {
    /// The current phase, read synchronously: checks read it right after a call returns.
    var phase: ObservedPhase { get }
    /// Calls `observer` with the current phase, then with every phase published after it, in
    /// order (ORDER-2). Called from whatever thread the loader publishes on: everything must be
    /// published on the main actor (ORDER-1 checks it).
    func observe(_ observer: @escaping @Sendable (ObservedPhase) -> Void)
    /// The model's public asynchronous observation, if it has one: a new sequence per read that
    /// yields the current phase first, then every phase published after it, in order (ORDER-2
    /// checks it for late subscribers, terminal phases included). Default nil: the model has no
    /// such stream and ORDER-2 judges `observe(_:)` alone.
    var phases: AsyncStream<ObservedPhase>? { get }
    /// Starts an attempt for the current source, and before returning publishes:
    /// - without a source: `failure(missingSource)` and no request (INIT-2), or nothing at all
    ///   with `.staysEmptyWithoutSource`;
    /// - on a memory hit: exactly one `success(origin: .memory)`, no request, no decode (CACHE-1);
    /// - otherwise `loading` (INIT-3), followed later by exactly one terminal phase (TRANS-1).
    /// While the same source loads or shows its image, `load()` does nothing: no new request, no
    /// decode, no failure (SHARE-1). After a failure or a cancel it starts a new attempt (ERR-4,
    /// TRANS-5). A new model must not load until this is called (INIT-1).
    func load()
    /// Abandons the current attempt. Before returning the phase is `empty` (or still shows an
    /// image already shown); nothing of the abandoned attempt is published afterwards, even when
    /// its response arrives (TRANS-3), and never a failure (TRANS-4). Other models sharing the
    /// work keep it; when every subscriber has cancelled, the transport request is cancelled
    /// (SHARE-3), and a model joining right after gets a fresh success (SHARE-4). A cancel during
    /// a retry back-off stops further requests (RETRY-2). Does nothing when nothing loads.
    func cancel()
    /// After a failure: a new attempt, exactly like `load()`, with `loading` published before
    /// returning and a new request (RETRY-3). Does nothing in any other phase.
    func retry()
    /// Switches the model to `source` (nil: no source). A different source cancels the current
    /// attempt as `cancel()` does (nothing of the old source is published afterwards:
    /// SOURCE-1), and the phase is `empty` before returning (TRANS-4); it does not start
    /// loading: the checks call `load()` next. The old image must never be published as a
    /// success for the new source (SOURCE-2; it may appear as `loading(previous:)`). The same
    /// source again does nothing. With `.reloadsOnSourceChange` (AsyncImage's way) a different,
    /// non-nil source starts its load before returning instead: `loading`, a memory hit, or the
    /// old phase kept until the new load's first publication (the capability states it), and the
    /// `load()` that follows does nothing.
    func setSource(_ source: ConformanceSource?)
    /// For loaders with `.priorities`: 0 lowest ... 4 highest (default 2).
    func setPriority(_ priority: Int)
}

extension ModelUnderTest {
    /// Ignores the priority: the default for a model without `.priorities`.
    public func setPriority(_ priority: Int) {}
    /// nil: the default for a model without an asynchronous phase stream (ORDER-2 then judges
    /// `observe(_:)` alone).
    public var phases: AsyncStream<ObservedPhase>? { nil }
}

/// A loader's memory cache, as the MEM rules inspect it. Every requirement is `async` (a cache
/// behind an actor answers with an `await`; a synchronous implementation satisfies it too); what
/// must stay synchronous is a memory hit inside `load()` (CACHE-1), not these probes.
@MainActor
public protocol MemoryCacheProbe: AnyObject {
    /// Bytes the cache charges for what it holds now: the sum of its entries' decoded sizes
    /// (MEM-1).
    var totalCost: Int { get async }
    /// The total limit the cache enforces, in bytes: `LoaderContext.memoryCostLimit` when the check
    /// set one (MEM-1 checks it was passed on).
    var costLimit: Int { get async }
    /// Whether the cache holds the decoded image for `source` (its URL and size) now: how the
    /// checks see what was evicted.
    func contains(_ source: ConformanceSource) async -> Bool
    /// Drops least recently used entries until `totalCost` is at most `cost` (MEM-3), before
    /// returning; what remains must still be served from memory.
    func trim(toCost cost: Int) async
}

/// A loader's disk cache, as the DISK rules inspect it. The checks read it, and open a new
/// loader instance on the same directory, as soon as a load has published its terminal phase:
/// by then a successful load's entry must be visible (an asynchronous writer must finish the
/// write first, or the adapter must wait for it before publishing). Every requirement is `async`
/// (a cache behind an actor answers with an `await`; a synchronous implementation satisfies it).
@MainActor
public protocol DiskCacheProbe: AnyObject {
    /// Bytes held, as the cache accounts them.
    var totalSize: Int { get async }
    /// The size limit the cache enforces, in bytes: `LoaderContext.diskSizeLimit` when the check
    /// set one (DISK-4 checks it was passed on).
    var sizeLimit: Int { get async }
    /// Complete entries held.
    var entryCount: Int { get async }
    /// Overwrites the stored bytes of `url`'s entry with garbage of the same length, before
    /// returning; false when there is no entry.
    func corruptEntry(for url: URL) async throws -> Bool
    /// Leaves on disk exactly what the cache's writer leaves when the process dies after writing
    /// `writtenBytes` of `bytes` for `url`, as if that happened long ago (DISK-1), before
    /// returning. The check can only be as honest as this simulation: it must mirror the real
    /// write path. `CrashLeftovers` has it ready for Foundation's atomic write and for a
    /// temporary file renamed into place.
    func simulateCrashWhileStoring(_ bytes: Data, for url: URL, writtenBytes: Int) async throws
}
