/// A PNG written by the harness itself, pixel data in stored (uncompressed) deflate blocks: no
/// codec is linked, and the fingerprint is of the very rows written. HTTP-3 makes its
/// realistically compressible image with it (see `ConformanceImage.moderatelyCompressible`).
enum StoredPNG {
    /// The PNG of `rgba` (tightly packed rows of `width` RGBA pixels), each row with filter 0.
    static func bytes(width: Int, height: Int, rgba: [UInt8]) -> [UInt8] {
        precondition(rgba.count == width * height * 4, "rgba holds width × height pixels")
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (width * 4 + 1))
        for row in 0..<height {
            raw.append(0)
            raw += rgba[(row * width * 4)..<((row + 1) * width * 4)]
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]   // 8-bit RGBA, not interlaced
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", header) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// A zlib stream of `data` in stored blocks (at most 65 535 bytes each).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(start + 65_535, data.count)
            let length = end - start
            out.append(end == data.count ? 1 : 0)   // BFINAL on the last block, BTYPE 00 (stored)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8 & 0xFF)]
            out += data[start..<end]
            start = end
        } while start < data.count
        return out + bigEndian(Int(adler32(data)))
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(data.count) + typed + bigEndian(Int(PaddedPNG.crc32(typed)))
    }

    private static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
