import CImagoCodecs

extension ImageDecoder {
    /// Opens the C decoder, runs `body` with it and the header, and always closes it.
    static func withOpenDecoder<R>(
        format: ImageFormat, input: imago_input,
        _ body: (OpaquePointer, imago_image_info) throws(DecodeError) -> R
    ) throws(DecodeError) -> R {
        let codec = CodecBinding.binding(for: format)
        var input = input
        var info = imago_image_info()
        var error = imago_error()
        guard let handle = codec.open(&input, &info, &error) else {
            throw error.decodeError(format: format)
        }
        defer { codec.close(handle) }
        return try body(handle, info)
    }

    /// `.tooLarge` when the header's dimensions exceed `options.pixelLimit` (or overflow).
    static func checkPixelLimit(_ info: imago_image_info, _ options: DecodeOptions) throws(DecodeError) {
        let (pixels, overflow) = Int(info.width).multipliedReportingOverflow(by: Int(info.height))
        if overflow || pixels > options.pixelLimit {
            throw .tooLarge(width: Int(info.width), height: Int(info.height), limit: options.pixelLimit)
        }
    }

    /// Header → pixel-limit check → allocate → decode → orient. Nothing is allocated for the
    /// pixels until the header's dimensions have passed the limit.
    static func run(format: ImageFormat, input: imago_input, options: DecodeOptions,
                    cancellation: DecodeCancellation?) throws(DecodeError) -> DecodedImage {
        if cancellation?.isCancelled == true { throw .cancelled }
        let codec = CodecBinding.binding(for: format)
        return try withOpenDecoder(format: format, input: input) { handle, info throws(DecodeError) in
            try checkPixelLimit(info, options)
            let width = Int(info.width), height = Int(info.height)
            let orientation = Int(info.orientation)
            let orient = options.applyOrientation && orientation > 1 && orientation <= 8
            let size = options.outputSize(width: width, height: height, swapsAxes: orient && orientation >= 5)
            guard let buffer = PixelBuffer(uninitializedWidth: size.width, height: size.height) else {
                throw .outOfMemory(byteCount: size.width * size.height * 4)
            }
            var error = imago_error()
            let status = codec.decode(handle, buffer.mutableBaseAddress, buffer.bytesPerRow,
                                      UInt32(size.width), UInt32(size.height),
                                      cancellation?.control, &error)
            guard status == IMAGO_OK else { throw error.decodeError(format: format) }
            let metadata = ImageMetadata(format: format, info: info, orientationApplied: orient)
            let output = orient ? try oriented(buffer, orientation: orientation) : buffer
            return DecodedImage(pixels: output, metadata: metadata)
        }
    }

    /// A new buffer showing `buffer` the way EXIF orientation 2...8 says to display it.
    static func oriented(_ buffer: PixelBuffer, orientation: Int) throws(DecodeError) -> PixelBuffer {
        let swaps = orientation >= 5
        let w = swaps ? buffer.height : buffer.width
        let h = swaps ? buffer.width : buffer.height
        guard let out = PixelBuffer(uninitializedWidth: w, height: h) else {
            throw .outOfMemory(byteCount: w * h * 4)
        }
        imago_orient_rgba(buffer.mutableBaseAddress, UInt32(buffer.width), UInt32(buffer.height),
                          buffer.bytesPerRow, out.mutableBaseAddress, out.bytesPerRow, Int32(orientation))
        return out
    }
}

extension PixelBuffer {
    /// An area-averaged smaller copy (the same filter the decoders finish with).
    public func resized(to size: PixelSize) throws(DecodeError) -> PixelBuffer {
        guard let out = PixelBuffer(uninitializedWidth: size.width, height: size.height) else {
            throw .outOfMemory(byteCount: size.width * size.height * 4)
        }
        var error = imago_error()
        let status = imago_resize_rgba(mutableBaseAddress, UInt32(width), UInt32(height), bytesPerRow,
                                       out.mutableBaseAddress, UInt32(size.width), UInt32(size.height),
                                       out.bytesPerRow, &error)
        guard status == IMAGO_OK else { throw .corrupt(format: .png, message: error.messageText) }
        return out
    }
}
