import Synchronization

/// One step of a load, timestamped so the benchmark can attribute time to stages.
public struct PipelineEvent: Sendable {
    public enum Kind: String, Sendable {
        case queued, fetchStart, firstByte, fetchEnd, decodeStart, decodeEnd, cacheStore, retry
        /// A download to file completed by continuing a partial an earlier attempt kept (206).
        case resumed
    }
    /// The request key (decode-stage events) or the source identity (fetch-stage events).
    public let key: String
    public let kind: Kind
    public let time: ContinuousClock.Instant
}

/// Running totals, for tests and the benchmark: how much work the pipeline really did.
public final class PipelineCounters: Sendable {
    public struct Snapshot: Sendable, Hashable {
        /// Transport requests started (retries count again).
        public var fetches = 0
        /// Decodes started (memory hits and coalesced joins do not decode).
        public var decodes = 0
        public var memoryHits = 0
        public var diskHits = 0
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
    public var snapshot: Snapshot { state.withLock { $0 } }
    func record(_ update: (inout Snapshot) -> Void) { state.withLock { update(&$0) } }
}
