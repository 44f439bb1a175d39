import Foundation
import Synchronization

/// Loads images: memory cache (synchronous) → disk cache → fetch → decode → store.
///
/// Identical requests are coalesced at two stages: decodes by request key (source + decode
/// options) and fetches by source, so N views of one URL in two sizes make one request and two
/// decodes. Shared work is cancelled only when all its subscribers have left, and it runs at
/// the highest priority among them. Stages are bounded by their own concurrency limits.
public final class ImagePipeline: Sendable {
    public let configuration: Configuration
    /// What the pipeline has done so far (fetches, decodes, cache hits).
    public let counters = PipelineCounters()

    let decodes = TaskPool<ImageRequestKey, ImageResponse>()
    let fetches = TaskPool<String, Payload>()
    let networkLimiter: StageLimiter
    let decodeLimiter: StageLimiter
    let prefetcher = Prefetcher()
    /// The pipeline's subscription to its pressure monitor (nil when it does not
    /// respond to pressure); it ends with the pipeline.
    private let pressureObservation = Mutex<MemoryPressureObservation?>(nil)

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        networkLimiter = StageLimiter(limit: configuration.maxConcurrentFetches)
        decodeLimiter = StageLimiter(limit: configuration.maxConcurrentDecodes,
                                     byteBudget: configuration.decodeMemoryBudget,
                                     headroom: configuration.budgetsDecodeMemory ? Self.livePixelHeadroom : nil)
        if configuration.respondsToMemoryPressure {
            let observation = configuration.memoryPressureMonitor.addObserver { [weak self] event in self?.respond(to: event) }
            pressureObservation.withLock { $0 = observation }
        }
        #if IMAGO_MUTANTS
        if Mutation.on(.memPipelinesRegistered) { Self.registered.withLock { $0.append(self) } }
        #endif
    }

    #if IMAGO_MUTANTS
    /// `Mutant.memPipelinesRegistered`'s process-wide list.
    static let registered = Mutex<[ImagePipeline]>([])
    /// `Mutant.errRemembersFailedURLs`'s failed-URL list.
    let failedURLs = Mutex<[URL: ImageLoadingError]>([:])
    /// `Mutant.shareReusesCancelledTask`'s tasks by key.
    let reusableTasks = Mutex<[ImageRequestKey: ImageTask]>([:])
    #endif

    /// The memory cache's image for `request`, synchronously, or nil (CACHE-1 relies on this).
    public func cachedResponse(for request: ImageRequest) -> ImageResponse? {
        guard request.cachePolicy.readsMemory, let cache = configuration.memoryCache,
              let image = cache.value(forKey: request.key)
        else { return nil }
        counters.record { $0.memoryHits += 1 }
        #if IMAGO_MUTANTS
        if Mutation.on(.cacheHitKeepsFirstOrigin) { return ImageResponse(image: image, origin: .network) }
        #endif
        return ImageResponse(image: image, origin: .memory)
    }

    /// Loads `request`. Cancelling the calling task leaves the shared work (which stops when
    /// nobody else wants it) and throws `.cancelled` at once.
    /// `preview` (default nil) receives the previews of a streaming load when the pipeline
    /// makes them (`Configuration.previews`), in order of increasing detail, before the result.
    public func response(for request: ImageRequest,
                         progress: (@Sendable (FetchProgress) -> Void)? = nil,
                         preview: (@Sendable (ImagePreview) -> Void)? = nil) async throws(ImageLoadingError) -> ImageResponse {
        let priority = request.priority
        return try await response(for: request, priority: { priority }, progress: progress, preview: preview).get()
    }

    /// Starts loading `request` and returns a handle to cancel it, re-prioritise it, or await it.
    /// A memory hit is ready at once.
    public func imageTask(for request: ImageRequest,
                          progress: (@Sendable (FetchProgress) -> Void)? = nil,
                          preview: (@Sendable (ImagePreview) -> Void)? = nil) -> ImageTask {
        #if IMAGO_MUTANTS
        if Mutation.on(.shareReusesCancelledTask) { return reusedTask(for: request, progress: progress) }
        #endif
        let task = ImageTask(request: request)
        task.start { priority in await self.response(for: request, priority: priority, progress: progress, preview: preview) }
        return task
    }

    func response(for request: ImageRequest, priority: @escaping @Sendable () -> ImageRequestPriority,
                  progress: (@Sendable (FetchProgress) -> Void)?,
                  preview: (@Sendable (ImagePreview) -> Void)? = nil) async -> Result<ImageResponse, ImageLoadingError> {
        if let hit = cachedResponse(for: request) { return .success(hit) }
        emit(.queued, request.key.description)
        return await decodes.value(for: request.key, priority: priority, onProgress: progress, onPreview: preview) { shared in
            await self.load(request, shared: shared)
        }
    }

    /// Loads waiting for a network slot (`Configuration.maxConcurrentFetches`), for diagnostics
    /// and tests of priority order.
    public var queuedFetchCount: Int { networkLimiter.waitingCount }

    /// Decodes wait while the process's pixel memory (live and pooled) plus their own need
    /// would pass `MemoryBudgets.livePixelCeiling` of the current limit (re-read on pressure
    /// events).
    static let livePixelHeadroom = StageLimiter.PixelHeadroom(
        allows: { bytes in pixelBytesOverCeiling(adding: bytes) <= 0 && cgroupHasRoom(for: bytes) },
        maxWait: MemoryBudgets.livePixelWait)

    /// Under a cgroup limit, also what the kernel counts: the cgroup's usage plus `bytes` must
    /// stay within 9/10 of the limit. Pixels are not all the process holds (bodies in flight,
    /// the heap): in the pressure bench the pixel ceiling alone still let one run in about
    /// fifteen be OOM-killed at 256 MiB. Without a cgroup limit there is nothing to read.
    static func cgroupHasRoom(for bytes: Int) -> Bool {
        let limit = MemoryLimit.current
        guard limit.source != .physicalMemory, let usage = limit.usageBytes() else { return true }
        return usage + bytes <= limit.bytes / 10 * 9
    }

    /// How far the process's pixel memory (live and pooled) plus `bytes` would pass the live
    /// pixel ceiling (0 or less: it fits).
    static func pixelBytesOverCeiling(adding bytes: Int) -> Int {
        PixelMemory.liveBytes + PixelMemory.retainedBytes + bytes - MemoryBudgets.current.livePixelCeiling
    }

    /// Bytes the decodes running now declared (at most `decodeMemoryBudget`, unless one image
    /// alone is larger).
    public var decodeBytesInFlight: Int { decodeLimiter.runningBytes }

    /// Bytes the decodes waiting for the budget (or a decode slot) declared.
    public var decodeBytesWaiting: Int { decodeLimiter.waitingBytes }

    /// Starts loading `requests` at low priority so they are cached when needed.
    public func startPrefetching(_ requests: [ImageRequest]) {
        for original in requests {
            var request = original
            request.priority = .veryLow
            let prefetch = request
            prefetcher.start(prefetch.key) { _ = try? await self.response(for: prefetch) }
        }
    }

    /// Stops prefetches that have not finished (a view that needs the image keeps its own load).
    public func stopPrefetching(_ requests: [ImageRequest]) {
        for request in requests { prefetcher.stop(request.key) }
    }

    func emit(_ kind: PipelineEvent.Kind, _ key: String) {
        configuration.eventHandler?(PipelineEvent(key: key, kind: kind, time: .now))
    }
}
