/// Turns source samples into JPEGs (YCbCr, gray, Adobe CMYK, YCCK; any sampling, progressive,
/// arithmetic, restarts, EXIF orientation) and computes the lossless-ideal reference.
enum JPEGCorpus {
    /// The ideal decoded image as displayed, and the encoder's input in display orientation
    /// (one 4-byte slot per pixel: R G B -, gray - - -, or C M Y K) so both can be un-oriented
    /// by the same transform.
    private static func prepare(_ source: CorpusSource, _ recipe: JPEGRecipe) -> (display: RGBAImage, input: RGBAImage) {
        let samples = ProceduralImage(seed: source.seed, width: source.width, height: source.height).samples16()
        let pixelCount = source.width * source.height
        var display = [UInt8](repeating: 255, count: pixelCount * 4)
        var input = [UInt8](repeating: 0, count: pixelCount * 4)
        let src = samples.values
        for p in 0..<pixelCount {
            let o = p * 4
            switch recipe.input {
            case .rgb:
                for c in 0..<3 { display[o + c] = SampleConversion.to8(src[o + c]) }
                for c in 0..<3 { input[o + c] = display[o + c] }
            case .gray:
                let y = SampleConversion.to8(SampleConversion.luma16(src[o], src[o + 1], src[o + 2]))
                (display[o], display[o + 1], display[o + 2]) = (y, y, y)
                input[o] = y
            case .cmyk, .ycck:
                let cmyk = SampleConversion.rgbToInvertedCMYK(
                    SampleConversion.to8(src[o]), SampleConversion.to8(src[o + 1]), SampleConversion.to8(src[o + 2]))
                (input[o], input[o + 1], input[o + 2], input[o + 3]) = cmyk
                (display[o], display[o + 1], display[o + 2]) =
                    SampleConversion.invertedCMYKToRGB(cmyk.0, cmyk.1, cmyk.2, cmyk.3)
            }
        }
        return (RGBAImage(width: source.width, height: source.height, pixels: display),
                RGBAImage(width: source.width, height: source.height, pixels: input))
    }

    /// Stored-orientation reference (what the decoder outputs without applying EXIF).
    static func reference(_ source: CorpusSource, _ recipe: JPEGRecipe) -> RGBAImage {
        prepare(source, recipe).display.unoriented(max(1, recipe.orientation))
    }

    static func render(_ source: CorpusSource, _ recipe: JPEGRecipe) throws -> RenderedImage {
        let orientation = max(1, recipe.orientation)
        let (display, displayInput) = prepare(source, recipe)
        let stored = displayInput.unoriented(orientation)
        let kind: Encoders.JPEGInput
        let components: Int
        switch recipe.input {
        case .rgb: (kind, components) = (.rgb, 3)
        case .gray: (kind, components) = (.gray, 1)
        case .cmyk, .ycck: (kind, components) = (.cmyk, 4)
        }
        var pixels = [UInt8]()
        pixels.reserveCapacity(stored.width * stored.height * components)
        for index in stride(from: 0, to: stored.pixels.count, by: 4) {
            pixels.append(contentsOf: stored.pixels[index..<(index + components)])
        }
        let bytes = try Encoders.jpeg(
            width: stored.width, height: stored.height, input: kind, pixels: pixels,
            stride: stored.width * components, quality: recipe.quality, sampling: recipe.samplingFactors,
            progressive: recipe.progressive, arithmetic: recipe.arithmetic,
            restartInterval: recipe.restartInterval, storeYCCK: recipe.input == .ycck,
            exifOrientation: recipe.orientation)
        var metadata = ImageMetadata.still(colorModel: recipe.input == .rgb ? "ycbcr" : recipe.input.rawValue)
        metadata.progressive = recipe.progressive
        metadata.arithmetic = recipe.arithmetic
        metadata.orientation = orientation
        return RenderedImage(bytes: bytes, reference: display.unoriented(orientation), metadata: metadata)
    }
}
