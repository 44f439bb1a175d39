/// A small LZ77 format for shipping a large, highly repetitive file (FETCH-4's 32 MiB stored
/// PNG packs to a few KiB) without a compression library: ImagoConformance links none.
///
/// Layout: the magic "IMLZ1", the unpacked length, then operations until that length is
/// reached. Every number is a LEB128 varint. An operation's header `h` is a literal run
/// (`h & 1 == 0`: `h >> 1` bytes follow) or a copy (`h & 1 == 1`: `h >> 1` bytes from `distance`
/// bytes back, a varint after the header; the source may overlap what it writes).
package enum PackedBytes {
    static let magic = Array("IMLZ1".utf8)
    /// Shorter matches cost more in headers than they save.
    static let minimumMatch = 8

    /// Packs `bytes`; `unpack` gives them back exactly. Greedy, one candidate per 8-byte hash:
    /// enough for images made of repeated rows.
    package static func pack(_ bytes: [UInt8]) -> [UInt8] {
        var out = magic
        appendVarint(bytes.count, to: &out)
        var table = [Int](repeating: -1, count: 1 << 16)
        var literalStart = 0
        var index = 0
        bytes.withUnsafeBufferPointer { input in
            func hash(_ at: Int) -> Int {
                var value: UInt64 = 0
                for offset in 0..<minimumMatch { value = value << 8 | UInt64(input[at + offset]) }
                return Int((value &* 0x9E37_79B9_7F4A_7C15) >> 48)
            }
            func flushLiterals(upTo end: Int) {
                guard end > literalStart else { return }
                appendVarint((end - literalStart) << 1, to: &out)
                out += input[literalStart..<end]
            }
            while index + minimumMatch <= input.count {
                let key = hash(index)
                let candidate = table[key]
                table[key] = index
                var length = 0
                if candidate >= 0 {
                    while index + length < input.count && input[candidate + length] == input[index + length] { length += 1 }
                }
                guard length >= minimumMatch else { index += 1; continue }
                flushLiterals(upTo: index)
                appendVarint(length << 1 | 1, to: &out)
                appendVarint(index - candidate, to: &out)
                index += length
                literalStart = index
            }
            flushLiterals(upTo: input.count)
        }
        return out
    }

    /// The bytes `pack` was given; throws `.corrupt` (naming `name`) for anything else.
    package static func unpack(_ packed: [UInt8], name: String) throws(ShippedImageError) -> [UInt8] {
        func corrupt(_ reason: String) -> ShippedImageError { .corrupt(name, reason: reason) }
        guard packed.starts(with: magic) else { throw corrupt("not packed (no IMLZ1 magic)") }
        var position = magic.count
        func varint() throws(ShippedImageError) -> Int {
            var value = 0
            var shift = 0
            while position < packed.count, shift < 63 {
                let byte = packed[position]
                position += 1
                value |= Int(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            throw corrupt("truncated number at byte \(position)")
        }
        let count = try varint()
        guard count <= 1 << 30 else { throw corrupt("unpacked length \(count) is implausible") }
        var out = [UInt8](repeating: 0, count: count)
        var written = 0
        try out.withUnsafeMutableBufferPointer { (output) throws(ShippedImageError) in
            while written < count {
                let header = try varint()
                let length = header >> 1
                guard length > 0, length <= count - written else { throw corrupt("operation of \(length) bytes at \(written)") }
                if header & 1 == 0 {
                    guard length <= packed.count - position else { throw corrupt("literal run past the end") }
                    for offset in 0..<length { output[written + offset] = packed[position + offset] }
                    position += length
                } else {
                    let distance = try varint()
                    guard distance > 0, distance <= written else { throw corrupt("copy from \(distance) bytes back at \(written)") }
                    // Copied in pieces no longer than the distance, so each piece's source is
                    // already written (an overlapping copy repeats the last `distance` bytes).
                    var done = 0
                    while done < length {
                        let piece = min(distance, length - done)
                        let target = output.baseAddress! + written + done
                        target.update(from: target - distance, count: piece)
                        done += piece
                    }
                }
                written += length
            }
        }
        guard position == packed.count else { throw corrupt("\(packed.count - position) bytes after the end") }
        return out
    }

    private static func appendVarint(_ value: Int, to out: inout [UInt8]) {
        var rest = UInt(value)
        while rest >= 0x80 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }
}
