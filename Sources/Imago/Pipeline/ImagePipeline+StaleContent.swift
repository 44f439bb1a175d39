import Foundation

/// Stale disk entries the server allowed to serve (RFC 5861): one within its
/// `stale-while-revalidate` window serves at once and is revalidated in the background; one
/// within its `stale-if-error` window serves when the fetch fails with an error the window
/// covers. Neither is kept in the memory cache, so a later load reads the disk again and sees
/// what the revalidation brought.
extension ImagePipeline {
    /// Waits until every background revalidation has ended (those started while waiting too),
    /// then returns each one that ended since the last call, in the order they ended. A process
    /// that exits after its loads (the CLI) calls it first, so the refreshed entry is on disk for
    /// its next run. Cancelling the waiting task cancels the revalidations.
    public func waitForBackgroundRevalidations() async -> [BackgroundRevalidation] {
        await backgroundRevalidations.waitForAll()
    }

    /// Cancels the background revalidations running now: each ends with `.cancelled`, no more
    /// requests are sent, and its stale entry stays as it was. The pipeline's end does the same.
    public func cancelBackgroundRevalidations() {
        backgroundRevalidations.cancelAll()
    }

    /// Background revalidations running now (at most 16, one per source).
    public var backgroundRevalidationCount: Int { backgroundRevalidations.runningCount }

    /// `entry`'s bytes decoded for `request`, reported as `outcome` (`.staleRevalidating` or
    /// `.staleIfError`); nil when they no longer serve (replaced meanwhile, or corrupt and so
    /// removed, CACHE-4): the caller goes on as without the entry.
    func serveStale(_ entry: DiskCache.Entry, as outcome: DiskCacheOutcome, _ request: ImageRequest,
                    _ shared: SharedWork) async -> Outcome? {
        let sourceKey = request.source.identity
        switch await decodeStage.decode(.file(entry.url), request, shared, origin: .disk) {
        case .success(let response):
            diagnostics.diskServedStale(sourceKey, outcome)
            return .success(response.reporting(outcome))
        case .failure(let error) where error.isCancellation: return .failure(.cancelled)
        case .failure(.decoding(.unreadable)): return nil
        case .failure:
            diskStage.remove(sourceKey)
            return nil
        }
    }

    /// Starts the background revalidation of the entry `lookup` served stale (conditional when
    /// it has a validator, else a plain fetch), unless the request may not write the disk (its
    /// answer could not be kept) or one runs for the source already.
    func revalidateInBackground(_ url: URL, _ request: ImageRequest, lookup: DiskLookup) {
        guard request.cachePolicy.writesDisk else { return }
        var background = request
        background.priority = .veryLow
        // A streaming fetch decodes as it goes; nobody waits for this image, so it is kept whole.
        let strategy: FetchStrategy = (request.fetchStrategy ?? configuration.network.fetchStrategy) == .file ? .file : .data
        background.fetchStrategy = strategy
        let revalidation = DiskLookup(revalidating: lookup.revalidating, conditionalHeaders: lookup.conditionalHeaders,
                                      hadEntry: true)
        let (fetchStage, sourceKey, backgroundRequest) = (self.fetchStage, request.source.identity, background)
        backgroundRevalidations.start(sourceKey) {
            let body = StoredBody(strategy, url: url, request: backgroundRequest, stage: fetchStage)
            let fetched = await fetchStage.fetch(url, backgroundRequest, lookup: revalidation, shared: SharedWork(), into: body)
            switch fetched {
            case .success(let payload): return BackgroundRevalidation(url: url, diskCache: payload.diskCache, failure: nil)
            case .failure(let error): return BackgroundRevalidation(url: url, diskCache: nil, failure: error)
            }
        }
    }
}
