import CImagoCodecs
import Foundation

/// What one decode will need in memory, computed from the header before any pixel is
/// allocated. The pipeline's decode budget admits decodes by `totalBytes`.
///
/// `outputBytes` = output width × height × 4, rounded up to whole 2 MiB huge pages when the
/// buffer is large enough to be mapped (what `PixelAllocator` really takes).
///
/// `workingBytes` = the sum of
/// - what the codec library allocates itself (`imago_image_info.working_bytes`): libjpeg's
///   full-size coefficient arrays for a progressive JPEG (2 bytes per coefficient, 64 per block
///   of every component: about 3 bytes per pixel at 4:2:0), libwebp's full-size ARGB buffer for
///   lossless (4 bytes per pixel) and a canvas for an animation, a WebP file's whole bitstream;
/// - an 8-bit RGB/RGBA PNG that is not interlaced, at any size: the row-by-row fast path's ISA-L
///   state, read buffer and rows (`imago_image_info.row_path_working_bytes`, about 85 KiB plus
///   64 KiB for a file, whatever the image's size);
/// - an Adam7 PNG decoded smaller than stored: a full-size RGBA intermediate (4 bytes per pixel),
///   because its seven passes revisit every row;
/// - a PNG decoded at full size from memory (8-bit RGB/RGBA, not interlaced): the fast path's
///   joined IDATs, at most the file's size, two rows, and for RGBA its inflated rows,
///   (1 + width × 4) × height (RGB rows are inflated into the output buffer itself)
///   (`imago_image_info.full_size_working_bytes`);
/// - orientation applied: a second output-sized buffer (the rotated copy);
/// - rows: 64 bytes per stored column (row batches, libpng's rows, the resizer's accumulators).
public struct DecodeMemoryEstimate: Sendable, Hashable {
    /// The returned pixels, as allocated.
    public var outputBytes: Int
    /// Everything else the decode holds while it runs (see the type's formula).
    public var workingBytes: Int
    /// The header the estimate was made from.
    public var metadata: ImageMetadata

    /// `outputBytes + workingBytes` (at most `Int.max`): what the decode budget charges.
    public var totalBytes: Int { Self.sum(outputBytes, workingBytes) }

    /// Bytes per stored column for row buffers and resizer state.
    static let rowBytesPerColumn = 64

    init(info: imago_image_info, format: ImageFormat, options: DecodeOptions) {
        let width = Int(info.width), height = Int(info.height)
        let orientation = Int(info.orientation)
        let orients = options.applyOrientation && orientation > 1 && orientation <= 8
        let size = options.outputSize(width: width, height: height, swapsAxes: orients && orientation >= 5)
        // Saturating throughout: a header may claim up to 2^31 - 1 on each side (with the pixel
        // limit lifted), and an estimate that wrapped would admit what can never fit.
        let output = Self.allocatedBytes(Self.product(size.width, size.height, 4))
        let storedPixels = Self.product(width, height)
        let resizing = Self.product(size.width, size.height) < storedPixels
        var working = Self.sum(Int(clamping: info.working_bytes), Self.product(width, Self.rowBytesPerColumn))
        if format == .png && info.progressive != 0 && resizing { working = Self.sum(working, Self.product(storedPixels, 4)) }
        working = Self.sum(working, Int(clamping: info.row_path_working_bytes))
        if !resizing { working = Self.sum(working, Int(clamping: info.full_size_working_bytes)) }
        if orients { working = Self.sum(working, output) }
        outputBytes = output
        workingBytes = working
        metadata = ImageMetadata(format: format, info: info, orientationApplied: orients)
    }

    /// `byteCount` as `PixelAllocator` allocates it: whole huge pages from its mapping threshold.
    static func allocatedBytes(_ byteCount: Int) -> Int {
        guard byteCount >= PixelAllocator.hugePageThreshold else { return byteCount }
        let page = PixelAllocator.hugePageSize
        return byteCount > Int.max - page ? Int.max : (byteCount + page - 1) / page * page
    }

    static func product(_ factors: Int...) -> Int {
        factors.reduce(1) { total, factor in
            let (value, overflow) = total.multipliedReportingOverflow(by: factor)
            return overflow ? .max : value
        }
    }

    static func sum(_ a: Int, _ b: Int) -> Int {
        let (value, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : value
    }
}

extension ImageDecoder {
    /// Reads only the header of encoded bytes and says what decoding them with `options` will
    /// need. Throws what the decode would throw for a bad header, and `.tooLarge` past
    /// `options.pixelLimit`.
    public static func memoryEstimate(_ data: Data, options: DecodeOptions = DecodeOptions()) throws(DecodeError) -> DecodeMemoryEstimate {
        let result: Result<DecodeMemoryEstimate, DecodeError> = data.withUnsafeBytes { raw in
            Result { () throws(DecodeError) in
                let (format, input) = try memoryInput(raw)
                return try estimate(format: format, input: input, options: options)
            }
        }
        return try result.get()
    }

    /// The same for a file, reading its header (a WebP file is read whole: libwebp needs it).
    public static func memoryEstimate(contentsOfFile path: String, options: DecodeOptions = DecodeOptions()) throws(DecodeError) -> DecodeMemoryEstimate {
        let file = try EncodedFile(path: path)
        defer { file.close() }
        let input = imago_input(data: nil, size: 0, fd: file.descriptor)
        do {
            return try estimate(format: file.format, input: input, options: options)
        } catch .unreadable(_, let reason) {
            throw .unreadable(path: path, reason: reason)
        }
    }

    private static func estimate(format: ImageFormat, input: imago_input, options: DecodeOptions) throws(DecodeError) -> DecodeMemoryEstimate {
        try withOpenDecoder(format: format, input: input) { _, info throws(DecodeError) in
            try checkPixelLimit(info, options)
            return DecodeMemoryEstimate(info: info, format: format, options: options)
        }
    }
}
