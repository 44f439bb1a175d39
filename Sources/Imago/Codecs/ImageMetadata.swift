/// How the source stored its samples.
public enum ColorModel: String, Sendable, Hashable, Codable {
    /// One per layout the codecs report: `gray` (grayscale PNG or JPEG), `grayAlpha` (grayscale
    /// PNG with alpha), `rgb` and `rgba` (PNG, RGB-coded JPEG, lossless WebP), `palette` (indexed
    /// PNG), `ycbcr` (most JPEGs, lossy WebP), `cmyk` and `ycck` (Adobe CMYK JPEGs). All decode
    /// to the same 8-bit RGBA.
    case gray, grayAlpha, rgb, rgba, palette, ycbcr, cmyk, ycck
}

/// What the decoder learned about the source, beyond its pixels.
public struct ImageMetadata: Sendable, Hashable, Codable {
    /// The codec that decoded it, from the signature.
    public var format: ImageFormat
    /// Source width as stored (before downsampling and orientation), in pixels.
    public var width: Int
    /// Source height as stored (before downsampling and orientation), in pixels.
    public var height: Int
    /// Bits per sample in the source (1, 2, 4, 8 or 16).
    public var bitDepth: Int
    /// The source's sample layout (the output is RGBA whatever it was).
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
    /// Frames in the file: an animated WebP's frame count, 1 for every other image.
    public var frameCount: Int
}

/// Pixels and what is known about where they came from.
public struct DecodedImage: Sendable {
    /// The decoded pixels: 8-bit RGBA at the output size the options asked for.
    public let pixels: PixelBuffer
    /// The source's header facts; its width and height are the stored size, not the output's.
    public let metadata: ImageMetadata
    /// Pairs pixels with the metadata of the source they came from.
    public init(pixels: PixelBuffer, metadata: ImageMetadata) {
        self.pixels = pixels
        self.metadata = metadata
    }
}
