/// Decoded pixels: 8-bit RGBA, straight (non-premultiplied) alpha, rows top to bottom.
/// Samples are the source's own (no gamma or ICC conversion); opaque sources have alpha 255.
/// Immutable and cheap to copy: copies share one storage.
public struct PixelBuffer: Sendable {
    /// Columns, in pixels (at least 1).
    public let width: Int
    /// Rows, in pixels (at least 1).
    public let height: Int
    /// Bytes from one row to the next; `width * 4` (rows are tightly packed).
    public let bytesPerRow: Int
    let storage: PixelStorage

    /// Uninitialized pixels for a decoder to fill; nil when the memory cannot be had.
    init?(uninitializedWidth width: Int, height: Int) {
        let (bytesPerRow, rowOverflow) = width.multipliedReportingOverflow(by: 4)
        let (byteCount, overflow) = bytesPerRow.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !rowOverflow, !overflow,
              let storage = PixelStorage(byteCount: byteCount)
        else { return nil }
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.storage = storage
    }

    /// Pixels from tightly packed RGBA bytes (`width * height * 4` of them).
    public init(width: Int, height: Int, rgba: [UInt8]) {
        precondition(width > 0 && height > 0 && rgba.count == width * height * 4,
                     "PixelBuffer needs width * height * 4 bytes")
        guard let buffer = PixelBuffer(uninitializedWidth: width, height: height) else {
            fatalError("cannot allocate \(width)x\(height) pixels")
        }
        rgba.withUnsafeBytes { buffer.storage.pointer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        self = buffer
    }

    /// Decoded size in bytes (`bytesPerRow * height`), the cost a memory cache charges.
    public var byteCount: Int { bytesPerRow * height }

    /// Lends the pixels' ``byteCount`` bytes (rows of ``bytesPerRow``, RGBA) to `body`; the
    /// pointer is valid only inside it and must not be written through.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: storage.pointer, count: byteCount))
    }

    var mutableBaseAddress: UnsafeMutablePointer<UInt8> {
        storage.pointer.assumingMemoryBound(to: UInt8.self)
    }

    /// The pixel at (x, y) as (r, g, b, a).
    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) out of bounds")
        let p = storage.pointer.assumingMemoryBound(to: UInt8.self) + y * bytesPerRow + x * 4
        return (p[0], p[1], p[2], p[3])
    }

    /// Tightly packed rows (`width * 4` bytes each), the layout `imago decode --output` writes.
    public func packedBytes() -> [UInt8] {
        withUnsafeBytes { raw in
            var out = [UInt8]()
            out.reserveCapacity(width * 4 * height)
            for y in 0..<height {
                let start = y * bytesPerRow
                out.append(contentsOf: raw[start..<(start + width * 4)])
            }
            return out
        }
    }
}

extension PixelBuffer: Equatable {
    /// Equal when the sizes and every pixel are equal.
    public static func == (lhs: PixelBuffer, rhs: PixelBuffer) -> Bool {
        guard lhs.width == rhs.width, lhs.height == rhs.height else { return false }
        if lhs.storage === rhs.storage { return true }
        let rowBytes = lhs.width * 4
        for y in 0..<lhs.height {
            let a = lhs.storage.pointer + y * lhs.bytesPerRow
            let b = rhs.storage.pointer + y * rhs.bytesPerRow
            if memcmp(a, b, rowBytes) != 0 { return false }
        }
        return true
    }
}

/// Owns one pixel allocation. Written only by the decoder that created it, before the
/// `PixelBuffer` escapes; read-only afterwards, which is what makes sharing it Sendable.
final class PixelStorage: @unchecked Sendable {
    let allocation: PixelAllocator.Allocation
    var pointer: UnsafeMutableRawPointer { allocation.pointer }

    init?(byteCount: Int) {
        guard let allocation = PixelAllocator.allocate(byteCount: byteCount) else { return nil }
        self.allocation = allocation
        PixelMemory.bufferCreated(byteCount: allocation.size)
    }

    deinit {
        // Released first: a listener judging headroom must see the pages in the pool (or gone).
        PixelAllocator.release(allocation)
        PixelMemory.bufferFreed(byteCount: allocation.size)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
