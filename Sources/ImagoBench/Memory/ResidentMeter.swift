import Imago

/// This process's resident memory around some work: the size before, the high-water mark
/// (reset at the start), and the size once every pixel buffer made since the start is freed and
/// the memory kept for reuse is handed back. Meant for a fresh process, where no earlier work
/// left memory for this work to reuse unseen: the memory probes and the loader bench's probes
/// (`LoaderMemoryProbe`) measure with it.
public struct ResidentMeter: Sendable {
    /// Resident bytes at the start.
    public let beforeBytes: Int
    /// Bytes the malloc heap had handed out at the start (`ProcessMemory.mallocInUseBytes`).
    public let mallocBeforeBytes: Int
    /// Pixel buffers alive at the start (`PixelMemory.liveBufferCount`).
    let buffersBefore: Int
    /// Whether the high-water mark was reset; if not, a peak includes everything since the
    /// process started.
    public let peakWasReset: Bool

    /// Starts measuring.
    public init() {
        beforeBytes = ProcessMemory.residentBytes() ?? 0
        mallocBeforeBytes = ProcessMemory.mallocInUseBytes()
        buffersBefore = PixelMemory.liveBufferCount
        peakWasReset = ProcessMemory.resetPeak()
    }

    /// The resident high-water mark since the start, in bytes (0 where the system has none).
    public func peakBytes() -> Int { ProcessMemory.peakResidentBytes() ?? 0 }

    /// What the work still holds: waits (at most 5 s) until every pixel buffer made since the
    /// start is freed (whichever thread drops the last reference frees it, possibly a moment
    /// after the work returned), hands back the memory kept for reuse, then reads.
    public func finish() async -> (afterBytes: Int, mallocAfterBytes: Int, imagesReleased: Bool) {
        let buffersBefore = buffersBefore
        let imagesReleased = await Self.waitUntil { PixelMemory.liveBufferCount <= buffersBefore }
        PixelMemory.trim()
        // Freed heap that glibc keeps cached is the allocator's, not the work's: hand it back so
        // "held" means still allocated (malloc-held counts small leaks that hide here).
        ProcessMemory.trimHeap()
        return (ProcessMemory.residentBytes() ?? 0, ProcessMemory.mallocInUseBytes(), imagesReleased)
    }

    /// Polls `condition` each millisecond for at most 5 s; whether it became true.
    public static func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<5000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }
}
