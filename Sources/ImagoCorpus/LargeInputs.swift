import Foundation

/// Large benchmark inputs, generated on demand rather than committed (a 40 MP image in five
/// formats is hundreds of MB). Same seed and size always give the same bytes.
public enum LargeInputs {
    /// The encodings the benchmark decodes.
    public enum Format: String, CaseIterable, Sendable {
        /// Baseline JPEG, quality 85, 4:2:0: the common camera/web case.
        case jpegBaseline = "jpeg-baseline"
        /// Progressive JPEG, quality 85, 4:2:0: multi-scan decoding cost.
        case jpegProgressive = "jpeg-progressive"
        /// 8-bit RGB PNG, zlib level 6 (libpng's default; level 9 is far slower to make).
        case pngRGB8 = "png-rgb8"
        /// Lossy WebP, quality 80.
        case webpLossy = "webp-lossy"
        /// Lossless WebP (libwebp's default effort, quality 75 as cwebp uses).
        case webpLossless = "webp-lossless"

        public var fileExtension: String {
            switch self {
            case .jpegBaseline, .jpegProgressive: return "jpg"
            case .pngRGB8: return "png"
            case .webpLossy, .webpLossless: return "webp"
            }
        }
    }

    /// Seed of every large input; changing it changes every bench file. Default: 2024.
    public static let seed: UInt64 = 2024

    /// 4:3 dimensions with about `megapixels` million pixels (12 -> 4000x3000).
    public static func dimensions(megapixels: Double) -> (width: Int, height: Int) {
        let width = max(1, Int((megapixels * 1_000_000 * 4 / 3).squareRoot().rounded()))
        let height = max(1, Int((Double(width) * 3 / 4).rounded()))
        return (width, height)
    }

    /// The file name used for a format and size, `<kind>-<megapixels>mp.<ext>` (e.g.
    /// "jpeg-progressive-12mp.jpg"), the names the bench harness (BenchInputs) looks for.
    public static func fileName(format: Format, megapixels: Double) -> String {
        let size = megapixels == megapixels.rounded() ? "\(Int(megapixels))" : "\(megapixels)"
        return "\(format.rawValue)-\(size)mp.\(format.fileExtension)"
    }

    /// Writes the input into `directory` (created if needed) and returns its URL. An existing
    /// file is reused when `reuseExisting` (default true): files are written atomically, so an
    /// existing one is complete, and generation is deterministic, so it is the same bytes.
    @discardableResult
    public static func make(format: Format, megapixels: Double, to directory: URL,
                            reuseExisting: Bool = true) throws -> URL {
        let url = directory.appendingPathComponent(fileName(format: format, megapixels: megapixels))
        if reuseExisting, FileManager.default.fileExists(atPath: url.path) { return url }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(encode(format: format, megapixels: megapixels)).write(to: url, options: .atomic)
        return url
    }

    /// The encoded bytes of a large input, without touching the file system.
    public static func encode(format: Format, megapixels: Double) throws -> [UInt8] {
        let (width, height) = dimensions(megapixels: megapixels)
        let image = ProceduralImage(seed: seed, width: width, height: height)
        switch format {
        case .jpegBaseline, .jpegProgressive:
            let rgb = image.samples8(channels: 3)
            return try Encoders.jpeg(width: width, height: height, input: .rgb, pixels: rgb, stride: width * 3,
                                     quality: 85, sampling: (2, 2), progressive: format == .jpegProgressive)
        case .pngRGB8:
            let rgb = image.samples8(channels: 3)
            return try Encoders.png(width: width, height: height, colorType: .rgb, bitDepth: 8, interlaced: false,
                                    samples: rgb, stride: width * 3, compressionLevel: 6)
        case .webpLossy, .webpLossless:
            let rgba = image.samples8(channels: 4)
            let lossless = format == .webpLossless
            return try Encoders.webp(width: width, height: height, rgba: rgba, stride: width * 4,
                                     lossless: lossless, quality: lossless ? 75 : 80, keepAlpha: false)
        }
    }
}
