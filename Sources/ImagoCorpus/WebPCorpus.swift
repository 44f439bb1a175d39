/// Turns source samples into still or animated WebPs and computes the reference (the first
/// frame for animations, which is what the decoder is expected to return).
enum WebPCorpus {
    /// 8-bit RGBA of frame `index` (frame i uses seed + i, so frames really differ).
    private static func frame(_ source: CorpusSource, index: Int) -> [UInt8] {
        ProceduralImage(seed: source.seed &+ UInt64(index), width: source.width, height: source.height,
                        options: .init(alpha: source.alpha)).samples16().rgba8()
    }

    static func reference(_ source: CorpusSource, _ recipe: WebPRecipe) -> RGBAImage {
        var pixels = frame(source, index: 0)
        if !recipe.keepAlpha {
            for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = 255 }
        }
        return RGBAImage(width: source.width, height: source.height, pixels: pixels)
    }

    static func render(_ source: CorpusSource, _ recipe: WebPRecipe) throws -> RenderedImage {
        let (width, height) = (source.width, source.height)
        let bytes: [UInt8]
        if recipe.frameCount > 1 {
            let frames = (0..<recipe.frameCount).map { frame(source, index: $0) }
            bytes = try Encoders.animatedWebP(width: width, height: height, frames: frames,
                                              frameDurationMs: recipe.frameDurationMs,
                                              lossless: recipe.lossless, quality: Float(recipe.quality))
        } else {
            bytes = try Encoders.webp(width: width, height: height, rgba: frame(source, index: 0), stride: width * 4,
                                      lossless: recipe.lossless, quality: Float(recipe.quality),
                                      keepAlpha: recipe.keepAlpha)
        }
        let reference = reference(source, recipe)
        // libwebp writes no alpha when every pixel is opaque, so hasAlpha follows the pixels.
        let hasAlpha = recipe.keepAlpha && reference.hasTransparency
        // VP8 (lossy) stores Y'CbCr 4:2:0; VP8L stores ARGB.
        let colorModel = recipe.lossless ? (hasAlpha ? "rgba" : "rgb") : "ycbcr"
        var metadata = ImageMetadata.still(colorModel: colorModel, hasAlpha: hasAlpha)
        metadata.lossless = recipe.lossless
        metadata.animated = recipe.frameCount > 1
        metadata.frameCount = recipe.frameCount
        return RenderedImage(bytes: bytes, reference: reference, metadata: metadata)
    }
}
