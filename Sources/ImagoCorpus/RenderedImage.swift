/// A generated corpus image: the encoded file and what a correct decoder must produce.
struct RenderedImage: Sendable {
    /// The encoded file.
    var bytes: [UInt8]
    /// Expected decoder output with EXIF orientation NOT applied (the stored pixels).
    var reference: RGBAImage
    var metadata: ImageMetadata
}

extension ImageMetadata {
    /// Metadata with the defaults of an 8-bit still image, for the format code to adjust.
    static func still(colorModel: String, bitDepth: Int = 8, hasAlpha: Bool = false) -> ImageMetadata {
        ImageMetadata(bitDepth: bitDepth, colorModel: colorModel, hasAlpha: hasAlpha, progressive: false,
                      arithmetic: false, lossless: false, orientation: 1, animated: false, frameCount: 1)
    }
}

extension Samples16 {
    /// The samples reduced to 8-bit RGBA by round(v / 257): the reference of any 8-bit
    /// encoding of this source.
    func rgba8() -> [UInt8] {
        values.map(SampleConversion.to8)
    }

    /// The source as an opaque reference image (alpha forced to 255).
    func opaqueReference() -> RGBAImage {
        var pixels = rgba8()
        for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = 255 }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
