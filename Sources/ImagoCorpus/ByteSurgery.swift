/// Structure-aware helpers for damaging files precisely: the invalid corpus must fail for the
/// stated reason, so cuts and corruptions are placed by parsing the file, not by guessing.
public enum ByteSurgery {
    /// A PNG chunk: `offset` is where its length field starts.
    struct PNGChunk {
        let offset: Int
        let length: Int
        let type: String
        var dataStart: Int { offset + 8 }
        var dataEnd: Int { dataStart + length }
        var crcOffset: Int { dataEnd }
    }

    static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
    }

    static func littleEndian32(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    static func appendBigEndian32(_ value: Int, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// The chunks after the 8-byte signature, stopping at the first malformed one.
    static func pngChunks(_ bytes: [UInt8]) -> [PNGChunk] {
        var chunks: [PNGChunk] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bigEndian32(bytes, at: offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { break }
            chunks.append(PNGChunk(offset: offset, length: length, type: type))
            offset += 12 + length
        }
        return chunks
    }

    /// Recomputes a chunk's CRC after its data was edited.
    static func fixPNGCRC(_ bytes: inout [UInt8], chunk: PNGChunk) {
        let crc = crc32(bytes[(chunk.offset + 4)..<chunk.dataEnd])
        for i in 0..<4 { bytes[chunk.crcOffset + i] = UInt8(crc >> (24 - 8 * i) & 0xFF) }
    }

    /// A complete PNG chunk (length, type, data, CRC).
    public static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var chunk: [UInt8] = []
        appendBigEndian32(data.count, to: &chunk)
        let body = Array(type.utf8) + data
        chunk += body
        appendBigEndian32(Int(crc32(body[...])), to: &chunk)
        return chunk
    }

    /// CRC-32 (ISO 3309 / PNG / zlib polynomial 0xEDB88320), bitwise: the inputs are tiny.
    public static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Offset of the first JPEG entropy-coded byte (just after the first SOS segment) and of
    /// the EOI marker.
    static func jpegScanBounds(_ bytes: [UInt8]) -> (scanStart: Int, eoi: Int)? {
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if marker == 0xDA {
                let eoi = bytes.count - 2
                guard bytes[eoi] == 0xFF, bytes[eoi + 1] == 0xD9 else { return nil }
                return (offset + 2 + length, eoi)
            }
            offset += 2 + length
        }
        return nil
    }
}
