extension ConformanceImage {
    /// A PNG whose image data is stored uncompressed (zlib level 0) and whose pixels are flat
    /// bands: gzip shrinks it to a small fraction, so its decoded body is far larger than the
    /// Content-Length of a gzip-encoded response (HTTP-3). `seed` picks the band colours; only
    /// the shipped ones exist (ShippedImage.all).
    static func compressible(seed: UInt8, width: Int, height: Int) throws(ShippedImageError) -> ConformanceImage {
        try ConformanceImage(.compressible(seed: seed, width: width, height: height))
    }

    /// A procedural photo PNG (zlib level 1), as `ConformanceImages` serves; only the shipped
    /// ones exist (ShippedImage.all).
    static func photo(seed: UInt64, width: Int, height: Int) throws(ShippedImageError) -> ConformanceImage {
        try ConformanceImage(.photo(seed: seed, width: width, height: height))
    }
}
