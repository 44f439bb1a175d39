import Imago

/// What every decode must satisfy, whatever the input. A violation stops the fuzzer with a
/// crash report (`fatalError` traps, and libFuzzer saves the input as a crash artifact).
public enum FuzzInvariants {
    /// Source pixels the fuzz targets allow (default limit is 100 MP). Far below it, so a
    /// header claiming huge dimensions exercises the refusal path instead of spending each
    /// run allocating and filling megabytes: a progressive JPEG that declares 2048×2048 and
    /// ends after its first scan decodes without any warning, and at 2^22 such inputs held the
    /// JPEG target to 263 runs a second. 2^18 still admits 512×512, beyond every corpus seed
    /// but the benchmark-sized ones.
    public static let pixelLimit = 1 << 18

    /// A failed decode: any typed error but `cancelled` (nobody cancelled), and `tooLarge`
    /// only when the header really exceeds the limit.
    public static func checkFailure(_ error: DecodeError, options: DecodeOptions, _ context: @autoclosure () -> String) {
        switch error {
        case .cancelled:
            fatalError("decode reported cancelled without a cancellation (\(context()))")
        case .tooLarge(let width, let height, let limit):
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            guard limit == options.pixelLimit, overflow || pixels > limit else {
                fatalError("tooLarge for \(width)x\(height) within limit \(limit) (\(context()))")
            }
        default:
            break
        }
    }

    /// A successful decode: a non-empty, tightly packed buffer no larger than the source (in
    /// display orientation when applied) and inside the requested box.
    public static func checkSuccess(_ image: DecodedImage, options: DecodeOptions, _ context: @autoclosure () -> String) {
        let pixels = image.pixels, metadata = image.metadata
        guard pixels.width > 0, pixels.height > 0, pixels.bytesPerRow == pixels.width * 4,
              pixels.byteCount == pixels.width * pixels.height * 4
        else { fatalError("malformed buffer \(pixels.width)x\(pixels.height) (\(context()))") }
        guard metadata.width * metadata.height <= options.pixelLimit else {
            fatalError("decoded \(metadata.width)x\(metadata.height) beyond the pixel limit (\(context()))")
        }
        let swaps = metadata.orientationApplied && metadata.orientation >= 5
        let (sourceW, sourceH) = swaps ? (metadata.height, metadata.width) : (metadata.width, metadata.height)
        var (boxW, boxH) = (sourceW, sourceH)
        if let side = options.maxPixelSize { (boxW, boxH) = (min(boxW, max(1, side)), min(boxH, max(1, side))) }
        if let target = options.targetSize {
            (boxW, boxH) = (min(boxW, max(1, target.width)), min(boxH, max(1, target.height)))
        }
        guard pixels.width <= boxW, pixels.height <= boxH else {
            fatalError("output \(pixels.width)x\(pixels.height) outside \(boxW)x\(boxH) (\(context()))")
        }
        if options.maxPixelSize == nil, options.targetSize == nil, (pixels.width, pixels.height) != (sourceW, sourceH) {
            fatalError("full-size decode gave \(pixels.width)x\(pixels.height) for \(sourceW)x\(sourceH) (\(context()))")
        }
    }
}
