import Synchronization

/// One step of a load, timestamped so the benchmark can attribute time to stages.
public struct PipelineEvent: Sendable {
    /// Which step an event marks.
    public enum Kind: String, Sendable {
        /// `queued`: a memory miss joined or started the work for its request key; `fetchStart` and
        /// `fetchEnd`: a transport request began and ended (each retry again), `firstByte` between
        /// them at its first body bytes; `decodeStart` and `decodeEnd`: a decode was admitted (slot
        /// and memory) and let go; `cacheStore`: an image went into the memory cache or a response
        /// onto disk; `retry`: a back-off before another request began.
        case queued, fetchStart, firstByte, fetchEnd, decodeStart, decodeEnd, cacheStore, retry
        /// A fresh disk entry served the load without a request.
        case diskFresh
        /// A stale (or `no-cache`) disk entry was revalidated: the server answered 304.
        case revalidated
        /// A response was not written to disk (`no-store`, `Vary: *`, not reusable, too large).
        case notStored
        /// A download to file completed by continuing a partial an earlier attempt kept (206).
        case resumed
        /// The disk cache remembered a fresh 404 or 410 for the URL: the load failed with it
        /// again, without a request (negative caching). Its key is the source identity.
        case rememberedFailure
    }
    /// The request key (decode-stage events) or the source identity (fetch-stage events).
    public let key: String
    /// Which step this event marks.
    public let kind: Kind
    /// When it was emitted: `ContinuousClock.now` on the thread that emitted it.
    public let time: ContinuousClock.Instant
    /// On a `fetchEnd` that got a response: the protocol it came over (`HTTP/1.1`, `HTTP/2.0`),
    /// as the transport reported it (``FetchResponseHead/httpVersion``). Nil on every other
    /// event, on a failed fetch, and from a transport that cannot tell.
    public let httpVersion: String?

    init(key: String, kind: Kind, time: ContinuousClock.Instant, httpVersion: String? = nil) {
        self.key = key
        self.kind = kind
        self.time = time
        self.httpVersion = httpVersion
    }
}

/// Running totals, for tests and the benchmark: how much work the pipeline really did.
public final class PipelineCounters: Sendable {
    /// The counters at one moment; each starts at 0 and only grows.
    public struct Snapshot: Sendable, Hashable {
        /// Transport requests started (retries count again).
        public var fetches = 0
        /// Decodes started (memory hits and coalesced joins do not decode).
        public var decodes = 0
        /// Loads answered by the memory cache's synchronous lookup (`cachedResponse(for:)`,
        /// CACHE-1).
        public var memoryHits = 0
        /// Loads served by the disk cache: fresh entries plus revalidated ones (304).
        public var diskHits = 0
        /// Disk hits that needed no request (the entry was fresh).
        public var diskFreshHits = 0
        /// Disk hits after a conditional request the server answered 304.
        public var diskRevalidations = 0
        /// Loads served by a stale entry the server allowed to serve (`stale-while-revalidate`,
        /// `stale-if-error`); not among `diskHits`.
        public var diskStaleHits = 0
        /// Loads that failed at once, without a request, because the disk cache remembered a
        /// fresh 404 or 410 for the URL (negative caching); not among `diskHits`.
        public var diskRememberedFailures = 0
        /// Responses written to disk as new entries (a remembered 404 or 410 included).
        public var diskStores = 0
        /// Responses written to disk in place of an entry for the same URL.
        public var diskReplacements = 0
        /// Responses the HTTP cache policy (or the size limit) kept off the disk.
        public var diskNotStored = 0
        /// Bytes the decode budget admitted, summed over every decode (their estimates).
        public var decodeBytesAdmitted = 0
        /// Decodes that could not start at once because the decode budget was spent.
        public var decodesWaitedForMemory = 0
        /// Decodes refused because they alone would exceed the effective memory limit.
        public var decodesRefusedForMemory = 0
        /// Memory-pressure events the pipeline responded to (warnings and criticals).
        public var memoryPressureEvents = 0
        /// Times the pipeline trimmed its memory cache (pressure or `trimMemory`).
        public var cacheTrims = 0
        /// Downloads completed by continuing a kept partial with a 206.
        public var resumedDownloads = 0
        /// Bytes those downloads did not fetch again (the partials' sizes, summed).
        public var resumedBytes = 0
    }

    private let state = Mutex(Snapshot())
    /// The counters now, read atomically (all fields from one moment).
    public var snapshot: Snapshot { state.withLock { $0 } }
    func record(_ update: (inout Snapshot) -> Void) { state.withLock { update(&$0) } }
}
