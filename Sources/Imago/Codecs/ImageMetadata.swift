/// How the source stored its samples.
public enum ColorModel: String, Sendable, Hashable, Codable {
    case gray, grayAlpha, rgb, rgba, palette, ycbcr, cmyk, ycck
}

/// What the decoder learned about the source, beyond its pixels.
public struct ImageMetadata: Sendable, Hashable, Codable {
    public var format: ImageFormat
    /// Source dimensions as stored (before downsampling and orientation).
    public var width: Int
    public var height: Int
    /// Bits per sample in the source (1, 2, 4, 8 or 16).
    public var bitDepth: Int
    public var colorModel: ColorModel
    /// An alpha channel or a transparency key (PNG tRNS) is present.
    public var hasAlpha: Bool
    /// EXIF orientation 1...8 (JPEG); 1 when absent.
    public var orientation: Int
    /// True when `orientation` was applied to the returned pixels.
    public var orientationApplied: Bool
    /// JPEG progressive or PNG Adam7 interlaced.
    public var isProgressive: Bool
    /// JPEG arithmetic coding.
    public var isArithmeticCoded: Bool
    /// WebP lossless (VP8L).
    public var isLossless: Bool
    /// An animated WebP: only the first frame was decoded.
    public var isAnimated: Bool
    public var frameCount: Int
}

/// Pixels and what is known about where they came from.
public struct DecodedImage: Sendable {
    public let pixels: PixelBuffer
    public let metadata: ImageMetadata
    public init(pixels: PixelBuffer, metadata: ImageMetadata) {
        self.pixels = pixels
        self.metadata = metadata
    }
}
