import CImagoCodecs
import Foundation

/// Decodes PNG, JPEG and WebP into `PixelBuffer`s through the C codec shims.
///
/// Thread-safe: any number of decodes may run at once. Synchronous entry points take an
/// optional `DecodeCancellation`; the async ones turn Swift task cancellation into one, so a
/// cancelled task stops within one row batch and releases its memory.
public enum ImageDecoder {
    /// Decodes encoded bytes.
    public static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions = DecodeOptions(),
                              cancellation: DecodeCancellation? = nil) throws(DecodeError) -> DecodedImage {
        let (format, input) = try memoryInput(bytes)
        return try run(format: format, input: input, options: options, cancellation: cancellation)
    }

    /// Decodes encoded bytes held in `Data`; the same as the raw-buffer form (the bytes are not
    /// copied). Throws ``DecodeError`` for empty, unknown, corrupt, truncated or too-large input.
    public static func decode(_ data: Data, options: DecodeOptions = DecodeOptions(),
                              cancellation: DecodeCancellation? = nil) throws(DecodeError) -> DecodedImage {
        let result: Result<DecodedImage, DecodeError> = data.withUnsafeBytes { raw in
            Result { () throws(DecodeError) in try decode(raw, options: options, cancellation: cancellation) }
        }
        return try result.get()
    }

    /// Decodes encoded bytes held in an array; the same as the raw-buffer form (the bytes are not
    /// copied). Throws ``DecodeError`` for empty, unknown, corrupt, truncated or too-large input.
    public static func decode(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions(),
                              cancellation: DecodeCancellation? = nil) throws(DecodeError) -> DecodedImage {
        let result: Result<DecodedImage, DecodeError> = bytes.withUnsafeBytes { raw in
            Result { () throws(DecodeError) in try decode(raw, options: options, cancellation: cancellation) }
        }
        return try result.get()
    }

    /// Decodes a file, streaming it through the codec in small reads: the compressed bytes are
    /// never held whole in memory (except an animated WebP's, which the demuxer needs).
    public static func decode(contentsOfFile path: String, options: DecodeOptions = DecodeOptions(),
                              cancellation: DecodeCancellation? = nil) throws(DecodeError) -> DecodedImage {
        let file = try EncodedFile(path: path)
        defer { file.close() }
        let input = imago_input(data: nil, size: 0, fd: file.descriptor)
        do {
            return try run(format: file.format, input: input, options: options, cancellation: cancellation)
        } catch .unreadable(_, let reason) {
            throw .unreadable(path: path, reason: reason)
        }
    }

    /// Decodes bytes, stopping early with `.cancelled` when the calling task is cancelled.
    public static func decode(_ data: Data, options: DecodeOptions = DecodeOptions()) async throws(DecodeError) -> DecodedImage {
        try await cancellable { cancellation throws(DecodeError) in
            try decode(data, options: options, cancellation: cancellation)
        }
    }

    /// Decodes a file, stopping early with `.cancelled` when the calling task is cancelled.
    public static func decode(contentsOfFile path: String, options: DecodeOptions = DecodeOptions()) async throws(DecodeError) -> DecodedImage {
        try await cancellable { cancellation throws(DecodeError) in
            try decode(contentsOfFile: path, options: options, cancellation: cancellation)
        }
    }

    /// Reads only the header: format, dimensions and the rest of the metadata, no pixels.
    public static func metadata(_ data: Data) throws(DecodeError) -> ImageMetadata {
        let result: Result<ImageMetadata, DecodeError> = data.withUnsafeBytes { raw in
            Result { () throws(DecodeError) in
                let (format, input) = try memoryInput(raw)
                return try withOpenDecoder(format: format, input: input) { _, info throws(DecodeError) in
                    ImageMetadata(format: format, info: info, orientationApplied: false)
                }
            }
        }
        return try result.get()
    }

    /// Encoded bytes in memory as the C decoders' input, with the format they declare.
    static func memoryInput(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> (ImageFormat, imago_input) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw .empty }
        let format = try sniff(SniffedFormat(prefix: bytes))
        return (format, imago_input(data: base.assumingMemoryBound(to: UInt8.self), size: bytes.count, fd: -1))
    }

    static func sniff(_ sniffed: SniffedFormat) throws(DecodeError) -> ImageFormat {
        switch sniffed {
        case .supported(let format): return format
        case .unsupported(let name): throw .unsupportedFormat(name)
        case .unknown: throw .unsupportedFormat("unknown")
        }
    }

    private static func cancellable(
        _ body: @Sendable (DecodeCancellation) throws(DecodeError) -> DecodedImage
    ) async throws(DecodeError) -> DecodedImage {
        let cancellation = DecodeCancellation()
        let result = await withTaskCancellationHandler {
            Result { () throws(DecodeError) in try body(cancellation) }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }
}
