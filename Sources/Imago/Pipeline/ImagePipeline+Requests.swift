import Foundation

/// How callers ask the pipeline for images: at once from memory, awaited, as a task handle, or
/// ahead of need (prefetch); and what it is doing now.
extension ImagePipeline {
    /// The memory cache's image for `request`, synchronously, or nil (CACHE-1 relies on this).
    public func cachedResponse(for request: ImageRequest) -> ImageResponse? {
        guard request.cachePolicy.readsMemory, let cache = configuration.dependencies.memoryCache,
              let image = cache.value(forKey: request.key)
        else { return nil }
        diagnostics.memoryHit(request.key)
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
        let task = ImageTask(request: request)
        task.start { priority in await self.response(for: request, priority: priority, progress: progress, preview: preview) }
        return task
    }

    /// The memory cache, else the decode-stage work for the request's key (joined when running).
    func response(for request: ImageRequest, priority: @escaping @Sendable () -> ImageRequestPriority,
                  progress: (@Sendable (FetchProgress) -> Void)?,
                  preview: (@Sendable (ImagePreview) -> Void)? = nil) async -> Outcome {
        if let hit = cachedResponse(for: request) { return .success(hit) }
        diagnostics.loadStarted(request.key)
        // Announced before the work is joined (at once, in `imageTask(for:)`): fetches of lower
        // priority wait until this load has reached the fetch stage (`FetchArrivals`).
        let arrival: String? = if case .url(let url) = request.source, url.scheme?.lowercased() != "file" {
            request.source.identity
        } else {
            nil
        }
        let arrivalID = arrival.map { fetchStage.admission.arrivals.announce($0, priority: priority) }
        defer { if let arrival, let arrivalID { fetchStage.admission.arrivals.leave(arrival, id: arrivalID) } }
        let outcome = await decodes.value(for: request.key, priority: priority, onProgress: progress, onPreview: preview) { shared in
            await self.load(request, shared: shared)
        }
        diagnostics.loadEnded(request.key, outcome)
        return outcome
    }

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

    /// Loads waiting for a network slot (`Configuration.Limits.maxConcurrentFetches`), for diagnostics
    /// and tests of priority order.
    public var queuedFetchCount: Int { fetchStage.admission.waitingCount }

    /// Bytes the decodes running now declared (at most `Configuration.Memory.decodeBudget`, unless one image
    /// alone is larger).
    public var decodeBytesInFlight: Int { decodeStage.limiter.runningBytes }

    /// Bytes the decodes waiting for the budget (or a decode slot) declared.
    public var decodeBytesWaiting: Int { decodeStage.limiter.waitingBytes }
}
