import Foundation

extension DecodeStage {
    /// Decodes wait while the pixel memory (live and pooled) plus their own need would pass
    /// `MemoryBudgets.livePixelCeiling` of the environment's limit now, or while a cgroup would
    /// have no room for them (`cgroupHasRoom`).
    static func livePixelHeadroom(_ memory: MemoryEnvironment) -> StageLimiter.PixelHeadroom {
        StageLimiter.PixelHeadroom(
            allows: { bytes in pixelBytesOverCeiling(adding: bytes, memory) <= 0 && cgroupHasRoom(for: bytes, memory) },
            maxWait: MemoryBudgets.livePixelWait, pixels: memory.pixels)
    }

    /// Under a cgroup limit, also what the kernel counts: the cgroup's usage plus `bytes` must
    /// stay within 9/10 of the limit. Pixels are not all the process holds (bodies in flight,
    /// the heap): in the pressure bench the pixel ceiling alone still let one run in about
    /// fifteen be OOM-killed at 256 MiB. Without a cgroup limit there is nothing to read.
    static func cgroupHasRoom(for bytes: Int, _ memory: MemoryEnvironment) -> Bool {
        let limit = memory.limit()
        guard limit.source != .physicalMemory, let usage = limit.usageBytes() else { return true }
        return usage + bytes <= limit.bytes / 10 * 9
    }

    /// How far the pixel memory (live and pooled) plus `bytes` would pass the live pixel
    /// ceiling (0 or less: it fits).
    static func pixelBytesOverCeiling(adding bytes: Int, _ memory: MemoryEnvironment) -> Int {
        memory.pixels.heldBytes + bytes - memory.budgets.livePixelCeiling
    }

    /// Pooled pages and cached images are kept for speed: a decode that would pass the live
    /// pixel ceiling gets their room first (the pool, then the memory cache's least recently
    /// used entries, as far as needed), instead of waiting on memory only this pipeline holds.
    func makeRoom(for bytes: Int) {
        guard budgetsMemory, Self.pixelBytesOverCeiling(adding: bytes, memory) > 0 else { return }
        memory.pixels.trim()
        let excess = Self.pixelBytesOverCeiling(adding: bytes, memory)
        if excess > 0, let cache = memoryCache, cache.totalCost > 0 {
            let before = cache.totalCost
            cache.trim(toCost: max(0, before - excess))
            diagnostics.memoryCacheTrimmed(.decode, fromCost: before, toCost: cache.totalCost)
        }
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
