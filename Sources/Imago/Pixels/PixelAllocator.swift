#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where pixel memory comes from. Large buffers are recycled through `PixelMemory` when a
/// freed one of the right size is at hand, and otherwise mapped directly, aligned to 2 MiB and
/// advised `MADV_HUGEPAGE`, because a fresh multi-megabyte buffer otherwise pays one page
/// fault per 4 KiB the first time the decoder writes it (measured here: a fresh 12 MP decode
/// ran at about half the speed of one into a warm buffer). Small buffers use malloc.
enum PixelAllocator {
    /// Buffers of at least this many bytes are mapped with huge-page advice (default 2 MiB,
    /// the x86-64 huge page size; smaller ones could not use a huge page anyway).
    static let hugePageThreshold = 2 << 20
    static let hugePageSize = 2 << 20

    struct Allocation: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
        /// Bytes mapped when `isMapped`, else the malloc size.
        let size: Int
        let isMapped: Bool
    }

    /// Returns nil when the system refuses the memory.
    static func allocate(byteCount: Int) -> Allocation? {
        let count = max(byteCount, 1)
        if count >= hugePageThreshold {
            let size = (count + hugePageSize - 1) / hugePageSize * hugePageSize
            if let recycled = PixelMemory.reuse(size: size) { return recycled }
            if let mapped = mapAligned(size: size) { return mapped }
        }
        guard let pointer = malloc(count) else { return nil }
        return Allocation(pointer: pointer, size: count, isMapped: false)
    }

    static func release(_ allocation: Allocation) {
        if allocation.isMapped {
            if !PixelMemory.offer(allocation) { unmap(allocation) }
        } else {
            free(allocation.pointer)
        }
    }

    static func unmap(_ allocation: Allocation) {
        munmap(allocation.pointer, allocation.size)
    }

    /// Maps `size` (whole huge pages) at a huge-page-aligned address: the kernel only backs
    /// aligned 2 MiB extents with huge pages, so we over-map and trim.
    private static func mapAligned(size: Int) -> Allocation? {
        let span = size + hugePageSize
        guard let raw = mmap(nil, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              raw != MAP_FAILED
        else { return nil }
        let address = UInt(bitPattern: raw)
        let aligned = (address + UInt(hugePageSize) - 1) / UInt(hugePageSize) * UInt(hugePageSize)
        let head = Int(aligned - address)
        let tail = span - head - size
        if head > 0 { munmap(raw, head) }
        let base = raw + head
        if tail > 0 { munmap(base + size, tail) }
        #if os(Linux)
        _ = madvise(base, size, Int32(MADV_HUGEPAGE))
        #endif
        return Allocation(pointer: base, size: size, isMapped: true)
    }
}
