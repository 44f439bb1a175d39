import Synchronization

/// Recycles freed large pixel mappings. Decoding the next image into pages that are already
/// faulted in runs at "warm buffer" speed; the pool holds at most `retainedByteLimit` bytes and
/// gives everything back on `trim()` (wire it to memory pressure).
public enum PixelMemory {
    /// Most bytes of freed pixel memory kept for reuse (default `min(L / 16, 64 MiB)` of the
    /// effective memory limit `L`, see `MemoryBudgets`: 64 MiB holds one 12 MP RGBA image on a
    /// desktop, 16 MiB in a 256 MiB container; 0 disables reuse). Only huge-page mappings are
    /// kept; small buffers use malloc, which recycles them itself.
    public static var retainedByteLimit: Int {
        get { pool.withLock { $0.limit } }
        set { release(pool.withLock { $0.setLimit(newValue) }) }
    }

    /// Bytes currently held for reuse.
    public static var retainedBytes: Int { pool.withLock { $0.total } }

    /// Pixel buffers alive in this process (every `PixelBuffer` storage not yet freed, small and
    /// large). A pipeline's images are all gone when this is back to what it was before the
    /// pipeline existed: the memory probes wait on it (MEM-5) instead of guessing at timing.
    public static var liveBufferCount: Int { live.withLock { $0.count } }

    /// Bytes of the pixel buffers alive in this process (their allocation sizes).
    public static var liveBytes: Int { live.withLock { $0.bytes } }

    /// One lock for the pair, so a reader never sees a count and a byte total out of step.
    private static let live = Mutex((count: 0, bytes: 0))

    static func bufferCreated(byteCount: Int) { live.withLock { $0.count += 1; $0.bytes += byteCount } }

    static func bufferFreed(byteCount: Int) {
        live.withLock { $0.count -= 1; $0.bytes -= byteCount }
        let listeners = freeListeners.withLock { $0.isEmpty ? [] : Array($0.values) }
        for listener in listeners { listener() }
    }

    /// Called (on the freeing thread, no lock held) after any pixel buffer is freed: decode
    /// stages waiting for pixel memory to go down re-judge their queue then, instead of polling.
    private static let freeListeners = Mutex<[ObjectIdentifier: @Sendable () -> Void]>([:])

    static func addFreeListener(_ owner: AnyObject, _ listener: @escaping @Sendable () -> Void) {
        freeListeners.withLock { $0[ObjectIdentifier(owner)] = listener }
    }

    static func removeFreeListener(_ owner: AnyObject) {
        _ = freeListeners.withLock { $0.removeValue(forKey: ObjectIdentifier(owner)) }
    }

    /// Returns every retained mapping to the system.
    public static func trim() {
        release(pool.withLock { $0.setLimit($0.limit, keeping: 0) })
    }

    private static let pool = Mutex(Pool())

    /// A retained mapping at least `size` bytes and at most 1/8 larger, or nil.
    static func reuse(size: Int) -> PixelAllocator.Allocation? {
        pool.withLock { $0.take(size: size) }
    }

    /// Keeps `allocation` for reuse if it fits under the limit; otherwise the caller unmaps it.
    static func offer(_ allocation: PixelAllocator.Allocation) -> Bool {
        pool.withLock { $0.put(allocation) }
    }

    private static func release(_ evicted: [PixelAllocator.Allocation]) {
        evicted.forEach(PixelAllocator.unmap)
    }

    private struct Pool: ~Copyable {
        var limit = MemoryBudgets.current.pixelMemoryRetainedLimit
        var total = 0
        var free: [PixelAllocator.Allocation] = []   // most recently freed last

        mutating func take(size: Int) -> PixelAllocator.Allocation? {
            guard let index = free.lastIndex(where: { $0.size >= size && $0.size - size <= size / 8 }) else { return nil }
            total -= free[index].size
            return free.remove(at: index)
        }

        mutating func put(_ allocation: PixelAllocator.Allocation) -> Bool {
            guard allocation.size <= limit else { return false }
            free.append(allocation)
            total += allocation.size
            var evicted: [PixelAllocator.Allocation] = []
            while total > limit {
                let oldest = free.removeFirst()
                total -= oldest.size
                evicted.append(oldest)
            }
            evicted.forEach(PixelAllocator.unmap)
            return true
        }

        mutating func setLimit(_ newLimit: Int, keeping keep: Int? = nil) -> [PixelAllocator.Allocation] {
            limit = max(0, newLimit)
            let bound = min(limit, keep ?? limit)
            var evicted: [PixelAllocator.Allocation] = []
            while total > bound, !free.isEmpty {
                let oldest = free.removeFirst()
                total -= oldest.size
                evicted.append(oldest)
            }
            return evicted
        }
    }
}
