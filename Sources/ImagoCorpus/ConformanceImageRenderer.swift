/// The conformance suite's images, made with the real encoders. ImagoConformance serves them from
/// committed files (so it links no C library); `imago conformance-images` writes those files
/// from here, and ConformanceTests checks that the committed bytes are still exactly what this
/// renders. The code is the suite's former generator, unchanged: same pixels, same encoder calls.
public struct ConformanceImageRenderer: Sendable {
    /// An encoded file and, when the decode is exact (PNG), the RGBA pixels it holds.
    public struct Rendered: Sendable {
        public let bytes: [UInt8]
        public let rgba: [UInt8]?
    }

    public init() {}

    /// A procedural photo as an 8-bit RGBA PNG at zlib level 1 (large enough for several
    /// progress reports).
    public func photoPNG(seed: UInt64, width: Int, height: Int) throws -> Rendered {
        let rgba = ProceduralImage(seed: seed, width: width, height: height).samples8(channels: 4)
        return Rendered(bytes: try rgbaPNG(rgba, width: width, height: height, interlaced: false, level: 1), rgba: rgba)
    }

    /// Flat horizontal bands, stored uncompressed (zlib level 0): gzip shrinks it to a fraction.
    public func compressiblePNG(seed: UInt8, width: Int, height: Int) throws -> Rendered {
        var rgba: [UInt8] = []
        rgba.reserveCapacity(width * height * 4)
        for y in 0..<height {
            let band = UInt8(truncatingIfNeeded: y / 8)
            for _ in 0..<width { rgba += [seed &* 40 &+ band &* 16, 255 &- band &* 9, seed, 255] }
        }
        return Rendered(bytes: try rgbaPNG(rgba, width: width, height: height, interlaced: false, level: 0), rgba: rgba)
    }

    /// A procedural photo as a quality-90 JPEG, progressive (libjpeg's standard script) or baseline.
    public func jpeg(seed: UInt64, width: Int, height: Int, progressive: Bool) throws -> Rendered {
        let rgb = ProceduralImage(seed: seed, width: width, height: height).samples8(channels: 3)
        let bytes = try Encoders.jpeg(width: width, height: height, input: .rgb, pixels: rgb, stride: width * 3,
                                      quality: 90, progressive: progressive)
        return Rendered(bytes: bytes, rgba: nil)
    }

    /// A procedural photo as an RGBA PNG stored uncompressed, Adam7-interlaced or not.
    public func storedPNG(seed: UInt64, width: Int, height: Int, interlaced: Bool) throws -> Rendered {
        let rgba = ProceduralImage(seed: seed, width: width, height: height).samples8(channels: 4)
        return Rendered(bytes: try rgbaPNG(rgba, width: width, height: height, interlaced: interlaced, level: 0),
                        rgba: rgba)
    }

    /// Bands and ramps, stored uncompressed: large decoded and about as large encoded.
    public func largePNG(width: Int, height: Int) throws -> Rendered {
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        rgba.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                let band = UInt8(truncatingIfNeeded: y / 16)
                var offset = y * width * 4
                for x in 0..<width {
                    pixels[offset] = band &* 16
                    pixels[offset + 1] = UInt8(truncatingIfNeeded: x / 16) &* 8
                    pixels[offset + 2] = band &+ UInt8(truncatingIfNeeded: x)
                    offset += 4
                }
            }
        }
        return Rendered(bytes: try rgbaPNG(rgba, width: width, height: height, interlaced: false, level: 0), rgba: rgba)
    }

    private func rgbaPNG(_ rgba: [UInt8], width: Int, height: Int, interlaced: Bool, level: Int) throws -> [UInt8] {
        try Encoders.png(width: width, height: height, colorType: .rgba, bitDepth: 8, interlaced: interlaced,
                         samples: rgba, stride: width * 4, compressionLevel: level)
    }
}
