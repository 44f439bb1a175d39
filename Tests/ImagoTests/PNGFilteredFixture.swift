import ImagoCorpus

/// PNG files written by hand for the fast path's tests, independent of libpng and of the decoder:
/// each row filtered with a chosen type (the PNG specification's forward filters), the filtered
/// bytes kept in stored (uncompressed) deflate blocks, Adler-32 computed here, chunks and their
/// CRC-32 by the corpus's `ByteSurgery`. So the expected pixels are the source samples
/// themselves, and every filter type is exercised on purpose rather than when an encoder happens
/// to pick it.
struct PNGFilteredFixture {
    let width: Int
    let height: Int
    /// 3 (RGB) or 4 (RGBA).
    let channels: Int
    /// width × channels samples per row, rows top to bottom.
    let samples: [UInt8]

    /// Deterministic samples with smooth runs and jumps, so each predictor sees varied a, b, c.
    init(width: Int, height: Int, channels: Int, seed: UInt32 = 7) {
        self.width = width
        self.height = height
        self.channels = channels
        var state = seed
        samples = (0..<(width * height * channels)).map { index in
            state = state &* 1_103_515_245 &+ 12345
            let smooth = UInt8(truncatingIfNeeded: index * 3 + index / (width * channels) * 5)
            return (state >> 16) % 11 == 0 ? UInt8(truncatingIfNeeded: state >> 24) : smooth &+ UInt8((state >> 20) % 4)
        }
    }

    /// The decoder's expected output: RGBA, RGB given alpha 255.
    var expectedRGBA: [UInt8] {
        guard channels == 3 else { return samples }
        var out = [UInt8]()
        out.reserveCapacity(width * height * 4)
        for pixel in 0..<(width * height) { out += samples[(pixel * 3)..<(pixel * 3 + 3)] + [255] }
        return out
    }

    /// The file, row y filtered with filterForRow(y) (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth;
    /// any other byte is written as given with the row unfiltered, for corrupt files).
    func png(filterForRow: (Int) -> UInt8, extraChunks: [(type: String, data: [UInt8])] = []) -> [UInt8] {
        let rowBytes = width * channels
        var raw = [UInt8]()
        raw.reserveCapacity((rowBytes + 1) * height)
        for y in 0..<height {
            let filter = filterForRow(y)
            raw.append(filter)
            for i in 0..<rowBytes {
                let x = Int(samples[y * rowBytes + i])
                let a = i >= channels ? Int(samples[y * rowBytes + i - channels]) : 0
                let b = y > 0 ? Int(samples[(y - 1) * rowBytes + i]) : 0
                let c = y > 0 && i >= channels ? Int(samples[(y - 1) * rowBytes + i - channels]) : 0
                let predictor: Int = switch filter {
                case 1: a
                case 2: b
                case 3: (a + b) / 2
                case 4: Self.paeth(a, b, c)
                default: 0
                }
                raw.append(UInt8(truncatingIfNeeded: x - predictor))
            }
        }
        var header = [UInt8]()
        header += Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height))
        header += [8, channels == 4 ? 6 : 2, 0, 0, 0]
        var file: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        file += Self.chunk("IHDR", header)
        for extra in extraChunks { file += Self.chunk(extra.type, extra.data) }
        file += Self.chunk("IDAT", Self.storedZlib(raw))
        file += Self.chunk("IEND", [])
        return file
    }

    static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let p = a + b - c
        let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
        return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] { ByteSurgery.pngChunk(type, data) }

    /// zlib (32 KiB window) around stored deflate blocks of at most 65535 bytes.
    static func storedZlib(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65535, data.count - offset)
            let final: UInt8 = offset + length == data.count ? 1 : 0
            out += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        var (s1, s2): (UInt32, UInt32) = (1, 0)
        for byte in data { s1 = (s1 + UInt32(byte)) % 65521; s2 = (s2 + s1) % 65521 }
        return out + bigEndian(s2 << 16 | s1)
    }

}
