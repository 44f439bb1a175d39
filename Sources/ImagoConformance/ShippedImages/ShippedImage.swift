/// One image the checks serve, named by what it was made from. The suite ships each as a file
/// (Sources/ImagoConformance/Images, written by `imago conformance-images`) rather than encoding
/// it at run time, so it links no codec library; `all` is every one a check asks for.
package enum ShippedImage: Hashable, Sendable, CustomStringConvertible {
    /// A procedural photo, RGBA PNG at zlib level 1 (`ConformanceImages`).
    case photo(seed: UInt64, width: Int, height: Int)
    /// Flat bands, RGBA PNG stored uncompressed (HTTP-3's gzip check).
    case compressible(seed: UInt8, width: Int, height: Int)
    /// A procedural photo, quality-90 JPEG (FETCH-3, PREVIEW-1).
    case jpeg(seed: UInt64, width: Int, height: Int, progressive: Bool)
    /// A procedural photo, RGBA PNG stored uncompressed (FETCH-3, PREVIEW-1).
    case storedPNG(seed: UInt64, width: Int, height: Int, interlaced: Bool)
    /// Bands and ramps, RGBA PNG stored uncompressed, tens of MiB (FETCH-4): shipped packed.
    case largePNG(width: Int, height: Int)

    /// How many `ConformanceImages.series` images there are: the memory and disk fill loops stop
    /// at 64 entries.
    package static let seriesCount = 64

    /// Every image a check serves. A check that needs another adds it here and regenerates.
    package static let all: [ShippedImage] = ConformanceImages.named
        + (0..<seriesCount).map(ConformanceImages.seriesImage)
        + [
            .photo(seed: 7, width: 200, height: 240),                          // DISK-5
            .compressible(seed: 7, width: 160, height: 120),                   // HTTP-3
            .jpeg(seed: 31, width: 320, height: 240, progressive: true),       // FETCH-3
            .storedPNG(seed: 32, width: 256, height: 192, interlaced: true),   // FETCH-3
            .jpeg(seed: 41, width: 384, height: 256, progressive: true),       // PREVIEW-1
            .storedPNG(seed: 42, width: 320, height: 240, interlaced: true),   // PREVIEW-1
            .jpeg(seed: 43, width: 384, height: 256, progressive: false),      // PREVIEW-1
            .largePNG(width: 4096, height: 2048),                              // FETCH-4
        ]

    /// The file's name in the Images resource directory.
    package var fileName: String {
        switch self {
        case let .photo(seed, width, height): "photo-\(seed)-\(width)x\(height).png"
        case let .compressible(seed, width, height): "compressible-\(seed)-\(width)x\(height).png"
        case let .jpeg(seed, width, height, progressive):
            "jpeg-\(seed)-\(width)x\(height)-\(progressive ? "progressive" : "baseline").jpg"
        case let .storedPNG(seed, width, height, interlaced):
            "stored-\(seed)-\(width)x\(height)-\(interlaced ? "adam7" : "plain").png"
        // Packed (PackedBytes): stored as it is, it would be 32 MiB in the repository.
        case let .largePNG(width, height): "large-\(width)x\(height).png.packed"
        }
    }

    /// Whether the file is PackedBytes' format rather than the image itself.
    var isPacked: Bool {
        if case .largePNG = self { return true }
        return false
    }

    package var description: String { fileName }
}
