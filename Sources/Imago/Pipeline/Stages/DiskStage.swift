import Foundation
import NIOPosix

/// The disk stage: what the disk cache holds for a source and what the HTTP cache policy makes
/// of it. It decides whether a stored entry serves a load as it is, is revalidated, or is
/// fetched again (`lookup`); whether a complete response is stored, replaces an entry, or is
/// kept off the disk (`store`, `keepOff`); and what a 304 refreshes (`payload(from:…)`). With no
/// disk cache every decision is "nothing stored".
struct DiskStage: Sendable {
    /// `ImagePipeline.Configuration.Dependencies.diskCache` (nil: no disk cache).
    let cache: (any ImageDiskCaching)?
    /// `ImagePipeline.Configuration.Network.httpCachePolicy`.
    let policy: HTTPCachePolicy
    /// The pipeline's clock: exchanges are dated and freshness is judged by its `now`.
    let clock: PipelineClock
    let diagnostics: PipelineDiagnostics

    /// Runs `work`, which blocks on the disk (file creation, writes, `fsync`, renames), on the
    /// disk stage's own threads (`blockingPool`) rather than on a thread of the cooperative
    /// pool: storing a body held a cooperative thread (one of two on a 2-core machine) in
    /// `fsync` for about a millisecond per load, time no other load's decode could use. Inline
    /// without a disk cache (nothing then blocks), and should the pool not run it: the work runs
    /// exactly once either way, cancelled or not, since it also decides what becomes of the
    /// body's file. `work` is given the stage to use: one whose reports (stored, not stored,
    /// revalidated) are made on the calling task once the work is done (`DeferredReports`), so
    /// that they see its task-local values.
    func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable (DiskStage) -> T) async -> T {
        guard cache != nil else { return work(self) }
        let reports = DeferredReports()
        let onPool = DiskStage(cache: cache, policy: policy, clock: clock, diagnostics: diagnostics.deferring(into: reports))
        let result: T? = await withCheckedContinuation { continuation in
            Self.blockingPool.submit { state in
                guard case .active = state else { return continuation.resume(returning: nil) }
                // Handed straight to the waiting task, never bound to a local of this thread: a
                // payload deletes its download with its last reference, and a reference left
                // here until this closure returned kept a `no-store` body on disk after its load
                // completed (NginxHTTPCachingTests, once). Not `runIfActive`, which does that.
                continuation.resume(returning: work(onPool))
            }
        }
        reports.replay()
        return result ?? work(self)
    }

    /// Threads for the disk stage's blocking work (one per core, at least 2), started on first
    /// use and kept for the process, like NIO's own singletons. Not `NIOThreadPool.singleton`:
    /// AsyncHTTPClient writes downloads to file there, and those writes should not wait behind
    /// the cache's `fsync`s.
    static let blockingThreads = max(2, ProcessInfo.processInfo.activeProcessorCount)
    private static let blockingPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: blockingThreads)
        pool.start()
        return pool
    }()

    /// The time HTTP dates and freshness are reckoned at (`PipelineClock.now`).
    func now() -> Date {
        clock.now
    }

    /// The cache's entry for `key` now (nil: none, or no disk cache).
    func entry(forKey key: String) -> DiskCache.Entry? {
        cache?.entry(forKey: key)
    }

    /// What the cache holds for `sourceKey` and what the policy says of it: a fresh entry to
    /// serve, a stale one to revalidate (its conditional headers), or one to fetch again.
    func lookup(_ sourceKey: String) -> DiskLookup {
        var lookup = DiskLookup()
        guard let cache else { return lookup }
        let entry = cache.entry(forKey: sourceKey)
        lookup.hadEntry = entry != nil
        defer { diagnostics.diskLookedUp(sourceKey, lookup) }
        guard let entry else { return lookup }
        let now = now()
        if entry.metadata.failureStatus != nil {
            // A remembered failure serves nothing but itself: fresh, it repeats; stale, or for
            // other request headers, the URL is fetched again (and a 200 replaces it).
            if policy.repeatsFailure(entry.metadata, storedAt: entry.storedAt,
                                     requestHeaders: HTTPCachePolicy.sentRequestHeaders, now: now) {
                lookup.rememberedFailure = entry.metadata.failureStatus
            }
            return lookup
        }
        switch policy.use(entry.metadata, storedAt: entry.storedAt, requestHeaders: HTTPCachePolicy.sentRequestHeaders,
                          now: now) {
        case .fresh:
            lookup.fresh = entry
        case .revalidate(let conditional):
            lookup.revalidating = entry.metadata   // a 304 serves these bytes
            lookup.conditionalHeaders = conditional
            lookup.staleIfError = policy.servesOnError(entry.metadata, storedAt: entry.storedAt, now: now) ? entry : nil
        case .staleWhileRevalidate(let conditional):
            lookup.staleRevalidating = entry
            if !conditional.isEmpty { lookup.revalidating = entry.metadata }
            lookup.conditionalHeaders = conditional
        case .refetch:
            // A Vary mismatch, or stale without a validator: the entry may still stand in for
            // a failed fetch (stale-if-error).
            lookup.staleIfError = policy.servesOnError(entry.metadata, storedAt: entry.storedAt, now: now) ? entry : nil
        }
        return lookup
    }

    /// A fresh entry served the load without a request.
    func servedFresh(_ sourceKey: String) {
        diagnostics.diskServedFresh(sourceKey)
    }

    /// Removes the entry for `key`: its bytes do not decode, or the server's newest word on the
    /// URL is not an image (CACHE-4, DISK-3). Nothing to do without a disk cache.
    func remove(_ key: String) {
        try? cache?.removeEntry(forKey: key)
    }

    /// A body the streaming decoder refused is the server's newest word on the URL and not an
    /// image: an older entry must not serve later loads either (the other strategies store, fail
    /// to decode and remove; CACHE-4, DISK-3). `writes`: the load may change the disk.
    func refused(_ failure: ImageLoadingError, sourceKey: String, writes: Bool) -> ImageLoadingError {
        if writes, case .decoding(let error) = failure, error != .cancelled, entry(forKey: sourceKey) != nil {
            remove(sourceKey)
        }
        return failure
    }

    /// Stores a complete 200 in the disk cache as the HTTP cache policy allows (a file is moved
    /// in), or keeps it off the disk, removing an older entry for the URL too: the server's
    /// newest word on the URL says not to keep it, so an older copy must not serve later loads.
    func store(_ storage: Payload.Storage, _ exchange: Exchange, sourceKey: String, lookup: DiskLookup,
               in disk: any ImageDiskCaching) -> DiskCacheOutcome {
        let result = exchange.result
        let hadEntry = lookup.hadEntry ?? (disk.entry(forKey: sourceKey) != nil)
        // A 206 is a whole image only when it completed a resumed download; one to a request
        // without Range is a server's mistake and not kept.
        let decision = result.head.statusCode == 206 && result.resumedFrom == 0 ? .refuse(.status)
            : policy.storage(for: result.head, requestHeaders: HTTPCachePolicy.sentRequestHeaders,
                             requestedAt: exchange.requestedAt, receivedAt: exchange.receivedAt)
        let outcome: DiskCacheOutcome
        switch decision {
        case .refuse(let reason):
            outcome = .notStored(reason)
        case .store(let metadata):
            do {
                let stored = switch storage {
                case .data(let data): try disk.store(data, forKey: sourceKey, metadata: metadata)
                case .file(let url): try disk.store(fileAt: url, forKey: sourceKey, metadata: metadata)
                }
                outcome = stored ? (hadEntry ? .replaced : .stored) : .notStored(.tooLarge)
            } catch {
                outcome = .notStored(.writeFailed)
            }
        }
        guard case .notStored(let reason) = outcome else {
            diagnostics.diskStored(sourceKey, replaced: hadEntry)
            return outcome
        }
        return keepOff(reason, sourceKey: sourceKey, hadEntry: hadEntry, in: disk)
    }

    /// A response the disk cache does not keep, for `reason`: an older entry for the URL goes
    /// too, and the miss is counted and reported. Returns `.notStored(reason)`.
    func keepOff(_ reason: DiskCacheOutcome.NotStoredReason, sourceKey: String, hadEntry: Bool,
                 in disk: any ImageDiskCaching) -> DiskCacheOutcome {
        if hadEntry { try? disk.removeEntry(forKey: sourceKey) }
        diagnostics.diskNotStored(sourceKey, reason)
        return .notStored(reason)
    }
}
