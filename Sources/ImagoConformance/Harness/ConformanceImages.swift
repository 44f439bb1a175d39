import Foundation

/// An image the harness serves, with the fingerprint a correct decode must produce.
public struct ConformanceImage: Sendable {
    /// The encoded file (8-bit RGBA PNG, so decoded pixels are exactly the source's).
    public let bytes: [UInt8]
    /// The size and pixels a correct decode of `bytes` gives.
    public let fingerprint: ImageFingerprint
    /// width × height × 4: the cost a memory cache must charge (MEM-1).
    public var decodedByteCount: Int { fingerprint.width * fingerprint.height * 4 }

    /// A shipped PNG (a procedural photo, or compressible bands) with its fingerprint.
    init(_ image: ShippedImage) throws(ShippedImageError) {
        (bytes, fingerprint) = try ShippedImageStore.exact(image)
    }

    /// A streamed PNG (exact pixels) as an image the harness serves.
    init(_ png: StreamedImage) throws(ShippedImageError) {
        guard png.contentType == "image/png", let fingerprint = png.fingerprint else {
            throw .corrupt("a \(png.contentType) image", reason: "only a PNG's pixels are exact")
        }
        (bytes, self.fingerprint) = (png.bytes, fingerprint)
    }
}

/// The images checks serve: small and fast to decode, distinct from each other. Procedural
/// photos (distinct seeds give distinct pixels) encoded as PNG at zlib level 1, which keeps the
/// files large enough for several progress reports; shipped as files (ShippedImage).
public struct ConformanceImages: Sendable {
    /// 64×48.
    public let small: ConformanceImage
    /// 48×64: a different image of the same cost as `small`.
    public let other: ConformanceImage
    /// 96×96: four times the cost of a 48×48.
    public let large: ConformanceImage
    /// 48×48.
    public let tiny1: ConformanceImage
    /// 48×48, distinct from `tiny1` (other pixels, the same cost).
    public let tiny2: ConformanceImage
    /// 256×256 (about 200 KB encoded): several progress reports when throttled.
    public let big: ConformanceImage

    /// The named images, in the order of the properties above.
    static let named: [ShippedImage] = [
        .photo(seed: 1, width: 64, height: 48), .photo(seed: 2, width: 48, height: 64),
        .photo(seed: 3, width: 96, height: 96), .photo(seed: 4, width: 48, height: 48),
        .photo(seed: 5, width: 48, height: 48), .photo(seed: 6, width: 256, height: 256),
    ]

    /// Throws when ImagoConformance's resources are missing or altered (a packaging fault).
    public init() throws(ShippedImageError) {
        let images = try Self.named.map { (image) throws(ShippedImageError) in try ConformanceImage(image) }
        (small, other, large, tiny1, tiny2, big) = (images[0], images[1], images[2], images[3], images[4], images[5])
    }

    /// A distinct image per index in 0..<64, all 40×40 (the memory and disk fill checks need
    /// several alike, and stop at 64); `.notShipped` outside that range.
    public func series(_ index: Int) throws(ShippedImageError) -> ConformanceImage {
        guard (0..<ShippedImage.seriesCount).contains(index) else { throw .notShipped("series(\(index))") }
        return try ConformanceImage(Self.seriesImage(index))
    }

    static func seriesImage(_ index: Int) -> ShippedImage {
        .photo(seed: 100 + UInt64(index), width: 40, height: 40)
    }
}
