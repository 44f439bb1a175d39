import ImagoCorpus

extension ConformanceImage {
    /// A PNG whose image data is stored uncompressed (zlib level 0) and whose pixels are flat
    /// bands: gzip shrinks it to a small fraction, so its decoded body is far larger than the
    /// Content-Length of a gzip-encoded response (HTTP-3). `seed` picks the band colours.
    public static func compressible(seed: UInt8, width: Int, height: Int) -> ConformanceImage {
        var rgba: [UInt8] = []
        rgba.reserveCapacity(width * height * 4)
        for y in 0..<height {
            let band = UInt8(truncatingIfNeeded: y / 8)
            for _ in 0..<width { rgba += [seed &* 40 &+ band &* 16, 255 &- band &* 9, seed, 255] }
        }
        let bytes = (try? Encoders.png(width: width, height: height, colorType: .rgba, bitDepth: 8, interlaced: false,
                                       samples: rgba, stride: width * 4, compressionLevel: 0)) ?? []
        precondition(!bytes.isEmpty, "the PNG encoder failed for a \(width)x\(height) compressible image")
        return ConformanceImage(bytes: bytes, fingerprint: ImageFingerprint(width: width, height: height, rgba: rgba))
    }

    init(bytes: [UInt8], fingerprint: ImageFingerprint) {
        self.bytes = bytes
        self.fingerprint = fingerprint
    }
}
