/// A valid PNG made large without making its pixels large: `image`'s file with private
/// ancillary chunks (`imAg`: ancillary, private, safe to copy; decoders skip them) of 1 MiB
/// each inserted after IHDR. FETCH-2 needs a body big enough that keeping it in memory shows
/// plainly against the process's other allocations, while decoding stays cheap.
enum PaddedPNG {
    static let chunkDataSize = 1 << 20

    /// `image`'s bytes plus `chunks` padding chunks (each 1 MiB of data plus 12 bytes framing).
    static func bytes(_ image: ConformanceImage, chunks: Int) -> [UInt8] {
        let ihdrEnd = 8 + 8 + 13 + 4   // signature, then IHDR's length, type, 13 data bytes and CRC
        precondition(image.bytes.count > ihdrEnd && Array(image.bytes[12..<16]) == Array("IHDR".utf8),
                     "a conformance image starts with IHDR")
        let data = [UInt8](repeating: 0, count: chunkDataSize)
        let type = Array("imAg".utf8)
        // Every padding chunk is identical, so its CRC is computed once.
        var chunk = bigEndian(data.count) + type + data
        chunk += bigEndian(Int(crc32(type + data)))
        var bytes = Array(image.bytes[..<ihdrEnd])
        bytes.reserveCapacity(image.bytes.count + chunks * chunk.count)
        for _ in 0..<chunks { bytes += chunk }
        bytes += image.bytes[ihdrEnd...]
        return bytes
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// CRC-32 as PNG defines it (polynomial 0xEDB88320), table-driven: the input is 1 MiB.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        let table: [UInt32] = (0..<256).map { index in
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            return crc
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
