import Foundation

extension DecodeStage {
    /// Decodes wait while the pixel memory (live and pooled) plus their own need would pass
    /// `MemoryBudgets.livePixelCeiling` of the environment's limit now, or while a cgroup would
    /// have no room for them (`roomNeeded`). A waiter blocked so first gets the room the
    /// pipeline's own pool and memory cache hold (`makeRoom`).
    static func livePixelHeadroom(_ memory: MemoryEnvironment, cache: (any ImageMemoryCaching)?,
                                  diagnostics: PipelineDiagnostics) -> StageLimiter.PixelHeadroom {
        StageLimiter.PixelHeadroom(
            allows: { bytes in roomNeeded(for: bytes, memory) <= 0 },
            wouldPassLimit: { bytes in limitRefusal(bytes, memory) != nil },
            makeRoom: { bytes in makeRoom(for: bytes, memory, cache: cache, diagnostics: diagnostics) },
            maxWait: MemoryBudgets.livePixelWait, limitWait: MemoryBudgets.cgroupFullWait, pixels: memory.pixels)
    }

    /// `.exceedsMemoryLimit` when, under a cgroup limit, the process's anonymous resident memory
    /// now plus `bytes` plus a sixteenth of the limit (as `memoryRefusal`) would pass the limit:
    /// started now, the decode would most likely get the process OOM-killed, taking every load
    /// with it. Such a decode waits for memory to be freed (`MemoryBudgets.cgroupFullWait`) and
    /// is refused if it never is. In the pressure bench the images of finished loads were still
    /// alive for up to a second (their owners' tasks had not run yet), and a 40 MP decode started
    /// beside one after the live-pixel wait was an OOM kill at 256 MiB. Anonymous memory, not the
    /// cgroup's usage: the usage counts page cache the kernel reclaims (a download to file's
    /// body), and it is read first only because it is cheap (the anonymous figure gives freed heap
    /// back first). Nil without a cgroup limit or an anonymous figure.
    static func limitRefusal(_ bytes: Int, _ memory: MemoryEnvironment) -> DecodeError? {
        let limit = memory.limit()
        guard limit.source != .physicalMemory, let usage = limit.usageBytes() else { return nil }
        let margin = limit.bytes / 16
        let sum = DecodeMemoryEstimate.sum
        guard sum(usage, sum(bytes, margin)) > limit.bytes, let anonymous = memory.anonymousResidentBytes() else { return nil }
        let required = sum(anonymous, sum(bytes, margin))
        return required > limit.bytes ? .exceedsMemoryLimit(requiredBytes: required, limitBytes: limit.bytes) : nil
    }

    /// Bytes a decode needing `bytes` is short of (0 or less: it may start): the larger of how
    /// far the pixel memory would pass the live pixel ceiling and, under a cgroup limit, how far
    /// the cgroup's usage besides page cache would pass 9/10 of the limit. Pixels are not all the process holds
    /// (bodies in flight, the heap): in the pressure bench the pixel ceiling alone still let one
    /// run in about fifteen be OOM-killed at 256 MiB. Without a cgroup limit there is no usage
    /// to read.
    static func roomNeeded(for bytes: Int, _ memory: MemoryEnvironment) -> Int {
        let pixels = pixelBytesOverCeiling(adding: bytes, memory)
        let limit = memory.limit()
        guard limit.source != .physicalMemory, let usage = limit.usageBytes() else { return pixels }
        let ceiling = limit.bytes / 10 * 9
        guard usage + bytes > ceiling else { return pixels }
        // Page cache fills a cgroup's usage up to its limit (a disk cache's files): only what the
        // kernel cannot reclaim counts. Read only past the ceiling: it costs a longer file.
        return max(pixels, (limit.usageBesidesPageCacheBytes() ?? usage) + bytes - ceiling)
    }

    /// How far the pixel memory (live and pooled) plus `bytes` would pass the live pixel
    /// ceiling (0 or less: it fits).
    static func pixelBytesOverCeiling(adding bytes: Int, _ memory: MemoryEnvironment) -> Int {
        memory.pixels.heldBytes + bytes - memory.budgets.livePixelCeiling
    }

    /// Pooled pages and cached images are kept for speed: a decode short of room
    /// (`roomNeeded`) gets theirs first, instead of waiting on memory only this pipeline holds.
    /// The memory cache gives what the pool cannot, least recently used first, then the pool is
    /// emptied (the images the cache lets go are pooled as they are freed). Called before a
    /// decode queues, when it is blocked at the head of the queue (decodes that ended meanwhile
    /// filled both again), and once it is admitted.
    static func makeRoom(for bytes: Int, _ memory: MemoryEnvironment, cache: (any ImageMemoryCaching)?,
                         diagnostics: PipelineDiagnostics) {
        let needed = roomNeeded(for: bytes, memory)
        guard needed > 0 else { return }
        let pooled = memory.pixels.retainedBytes()
        if needed > pooled, let cache, cache.totalCost > 0 {
            let before = cache.totalCost
            cache.trim(toCost: max(0, before - (needed - pooled)))
            diagnostics.memoryCacheTrimmed(.decode, fromCost: before, toCost: cache.totalCost)
        }
        memory.pixels.trim()
    }

    func makeRoom(for bytes: Int) {
        guard budgetsMemory else { return }
        Self.makeRoom(for: bytes, memory, cache: memoryCache, diagnostics: diagnostics)
    }

    /// `.exceedsMemoryLimit` when a decode needing `bytes` could never fit in the process's
    /// effective memory limit (read now: it may have changed); nil when the budget is off.
    func memoryRefusal(_ bytes: Int) -> DecodeError? {
        guard budgetsMemory else { return nil }
        return Self.memoryRefusal(bytes, limit: memory.budgets.limitBytes, heldBesidesPixels: nil)
    }

    /// Once admitted, a decode larger than the decode budget runs alone, and is also weighed
    /// against what the process holds besides pixels (`nonPixelResidentBytes`): the encoded body
    /// of a `data` fetch, bodies still arriving, the runtime. Other decodes' working memory is
    /// gone by then, and no wait frees the rest; such a decode started anyway is how a container
    /// gets OOM-killed (a 40 MP PNG fetched as data under 192 MiB). Nil when it fits, is not
    /// that large, or the budget is off.
    func aloneRefusal(_ bytes: Int) -> DecodeError? {
        let budgets = memory.budgets
        guard budgetsMemory, bytes > budgets.decodeBudget, bytes <= budgets.limitBytes,
              let held = nonPixelResidentBytes() else { return nil }
        return Self.memoryRefusal(bytes, limit: budgets.limitBytes, heldBesidesPixels: held)
    }

    /// The rule itself: the need alone past the limit, or (when measured) the need plus
    /// `heldBesidesPixels` plus a sixteenth of the limit past it. The sixteenth is what the
    /// kernel and the loads still receiving bodies add while the decode runs: a 40 MP PNG
    /// fetched as data under 224 MiB peaked at 223 MiB without it.
    static func memoryRefusal(_ bytes: Int, limit: Int, heldBesidesPixels: Int?) -> DecodeError? {
        var required = bytes
        if let held = heldBesidesPixels { required = DecodeMemoryEstimate.sum(required, DecodeMemoryEstimate.sum(held, limit / 16)) }
        return required > limit ? .exceedsMemoryLimit(requiredBytes: required, limitBytes: limit) : nil
    }

    /// Anonymous resident memory less the live and pooled pixel buffers (which caches give back
    /// and apps release); nil where it cannot be read.
    func nonPixelResidentBytes() -> Int? {
        guard let resident = memory.anonymousResidentBytes() else { return nil }
        return max(0, resident - memory.pixels.heldBytes)
    }
}
