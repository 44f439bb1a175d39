extension ConformanceImage {
    /// A PNG whose image data is stored uncompressed (zlib level 0) and whose pixels are flat
    /// bands: gzip shrinks it about 130:1, a ratio a decompression-bomb defence may refuse
    /// (HTTP-3 accepts a typed failure for it). `seed` picks the band colours; only the shipped
    /// ones exist (ShippedImage.all).
    static func compressible(seed: UInt8, width: Int, height: Int) throws(ShippedImageError) -> ConformanceImage {
        try ConformanceImage(.compressible(seed: seed, width: width, height: height))
    }

    /// A PNG with stored image data whose pixels are flat bands with one pixel in ten of seeded
    /// noise: gzip shrinks it about 7:1, as it does real images served uncompressed (HTTP-3's
    /// case every loader must decode; a client's bomb limit, 25:1 for AsyncHTTPClient's
    /// default, lets it through).
    static func moderatelyCompressible(seed: UInt64, width: Int, height: Int) -> ConformanceImage {
        var state = seed
        var rgba: [UInt8] = []
        rgba.reserveCapacity(width * height * 4)
        for row in 0..<height {
            let band = UInt8(truncatingIfNeeded: row / 8 &* 37)
            for _ in 0..<width {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                if (state >> 33) % 10 == 0 {
                    rgba += [UInt8(truncatingIfNeeded: state >> 40), UInt8(truncatingIfNeeded: state >> 48),
                             UInt8(truncatingIfNeeded: state >> 56), 255]
                } else {
                    rgba += [band, band &* 3, 255 &- band, 255]
                }
            }
        }
        return ConformanceImage(bytes: StoredPNG.bytes(width: width, height: height, rgba: rgba),
                                fingerprint: ImageFingerprint(width: width, height: height, rgba: rgba))
    }

    /// An image whose bytes and fingerprint the harness made itself (StoredPNG).
    init(bytes: [UInt8], fingerprint: ImageFingerprint) {
        self.bytes = bytes
        self.fingerprint = fingerprint
    }

    /// A procedural photo PNG (zlib level 1), as `ConformanceImages` serves; only the shipped
    /// ones exist (ShippedImage.all).
    static func photo(seed: UInt64, width: Int, height: Int) throws(ShippedImageError) -> ConformanceImage {
        try ConformanceImage(.photo(seed: seed, width: width, height: height))
    }
}
