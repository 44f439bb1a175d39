/// Gzip files for nginx's `gzip_static` (the `FILE.gz` it serves beside `FILE`).
///
/// Why stored (uncompressed) deflate blocks: Foundation on Linux has no compressor, and a test
/// of Content-Encoding handling needs a valid gzip stream, not a small one. A stored stream is
/// also a little larger than its content, as gzip output of an already-compressed image often
/// is: the case where a client that compares its decoded byte count with the encoded
/// Content-Length sees a truncation that is not there.
public enum GzipFile {
    /// A one-member gzip file (RFC 1952) of `bytes` in stored deflate blocks (RFC 1951 3.2.4).
    public static func stored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]   // deflate, no flags, no mtime, Unix
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            let final = offset + length == bytes.count
            out.append(final ? 1 : 0)   // BFINAL, BTYPE 00 (stored), then byte-aligned
            out += littleEndian16(UInt16(length)) + littleEndian16(~UInt16(length))
            out += bytes[offset..<(offset + length)]
            offset += length
        } while offset < bytes.count
        out += littleEndian32(crc32(bytes)) + littleEndian32(UInt32(truncatingIfNeeded: bytes.count))
        return out
    }

    /// CRC-32 (IEEE 802.3, reflected), as gzip's trailer holds it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func littleEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }

    private static func littleEndian32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
