import CImagoCodecs
import CImagoTestCodecs

/// An encoder rejected its input; `message` is the C side's own words.
public struct EncodeError: Error, Sendable, CustomStringConvertible {
    /// The imago_status the C encoder returned.
    public let status: Int32
    public let message: String
    public var description: String { "encode failed (status \(status)): \(message)" }
}

/// Thin Swift wrappers over the C encoders (imago_encode.h). They only marshal arguments and
/// copy the malloc()ed result into an array; every encoding decision is made by the caller.
public enum Encoders {
    /// PNG colour types, as numbered in the PNG specification.
    public enum PNGColorType: Int32, Sendable {
        case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6
    }

    /// PNG from samples laid out exactly as PNG stores them (bit-packed below 8 bits,
    /// big-endian 16-bit). `palette` is RGB triples; `paletteAlpha` the tRNS entries (may be
    /// shorter than the palette); `transparentKey` a gray (first value) or RGB key colour.
    public static func png(width: Int, height: Int, colorType: PNGColorType, bitDepth: Int,
                           interlaced: Bool, samples: [UInt8], stride: Int,
                           palette: [UInt8] = [], paletteAlpha: [UInt8] = [],
                           transparentKey: [UInt16]? = nil, compressionLevel: Int = 9) throws -> [UInt8] {
        try samples.withUnsafeBufferPointer { samples in
            try palette.withUnsafeBufferPointer { palette in
                try paletteAlpha.withUnsafeBufferPointer { trns in
                    var params = imago_png_encode_params()
                    params.width = UInt32(width)
                    params.height = UInt32(height)
                    params.color_type = colorType.rawValue
                    params.bit_depth = Int32(bitDepth)
                    params.interlaced = interlaced ? 1 : 0
                    params.samples = samples.baseAddress
                    params.stride = stride
                    params.palette_rgb = palette.baseAddress
                    params.palette_count = Int32(palette.count / 3)
                    params.trns_alpha = trns.baseAddress
                    params.trns_count = Int32(trns.count)
                    if let key = transparentKey {
                        params.has_trns_color = 1
                        if key.count >= 3 {
                            (params.trns_red, params.trns_green, params.trns_blue) = (key[0], key[1], key[2])
                        } else if let gray = key.first {
                            params.trns_gray = gray
                        }
                    }
                    params.compression_level = Int32(compressionLevel)
                    return try run { out, err in imago_png_encode(&params, out, err) }
                }
            }
        }
    }

    /// What JPEG input pixels are: 3, 1 or 4 bytes per pixel.
    public enum JPEGInput: Int32, Sendable {
        case rgb = 0, gray = 1, cmyk = 2
    }

    /// JPEG via libjpeg. `sampling` is the luma (horizontal, vertical) factor: (2, 2) is 4:2:0,
    /// (2, 1) 4:2:2, (1, 1) 4:4:4. CMYK input is stored as given (Adobe-inverted) unless
    /// `storeYCCK`. `exifOrientation` 0 writes no EXIF.
    public static func jpeg(width: Int, height: Int, input: JPEGInput, pixels: [UInt8], stride: Int,
                            quality: Int, sampling: (Int, Int) = (2, 2), progressive: Bool = false,
                            arithmetic: Bool = false, restartInterval: Int = 0, storeYCCK: Bool = false,
                            exifOrientation: Int = 0) throws -> [UInt8] {
        try pixels.withUnsafeBufferPointer { pixels in
            var params = imago_jpeg_encode_params()
            params.width = UInt32(width)
            params.height = UInt32(height)
            params.input_kind = input.rawValue
            params.pixels = pixels.baseAddress
            params.stride = stride
            params.quality = Int32(quality)
            params.h_samp = Int32(sampling.0)
            params.v_samp = Int32(sampling.1)
            params.progressive = progressive ? 1 : 0
            params.arithmetic = arithmetic ? 1 : 0
            params.restart_interval = Int32(restartInterval)
            params.cmyk_store = storeYCCK ? Int32(IMAGO_JPEG_STORE_YCCK) : Int32(IMAGO_JPEG_STORE_NATIVE)
            params.exif_orientation = Int32(exifOrientation)
            return try run { out, err in imago_jpeg_encode(&params, out, err) }
        }
    }

    /// Still WebP from straight-alpha RGBA. `keepAlpha` false encodes as opaque. Lossless
    /// encodes set libwebp's `exact`, so RGB under transparent pixels survives.
    public static func webp(width: Int, height: Int, rgba: [UInt8], stride: Int, lossless: Bool,
                            quality: Float, keepAlpha: Bool) throws -> [UInt8] {
        try rgba.withUnsafeBufferPointer { rgba in
            var params = imago_webp_encode_params()
            params.width = UInt32(width)
            params.height = UInt32(height)
            params.rgba = rgba.baseAddress
            params.stride = stride
            params.lossless = lossless ? 1 : 0
            params.quality = quality
            params.keep_alpha = keepAlpha ? 1 : 0
            return try run { out, err in imago_webp_encode(&params, out, err) }
        }
    }

    /// Animated WebP from full-canvas RGBA frames of equal size.
    public static func animatedWebP(width: Int, height: Int, frames: [[UInt8]], frameDurationMs: Int,
                                    lossless: Bool, quality: Float) throws -> [UInt8] {
        let joined = Array(frames.joined())
        let stride = width * 4
        guard !frames.isEmpty, joined.count == frames.count * stride * height else {
            throw EncodeError(status: Int32(IMAGO_ERR_INVALID_ARGUMENT.rawValue),
                              message: "animated webp: frames must be non-empty, each \(width)x\(height) RGBA")
        }
        return try joined.withUnsafeBufferPointer { data in
            try run { out, err in
                imago_webp_encode_animated(UInt32(width), UInt32(height), data.baseAddress, stride,
                                           Int32(frames.count), Int32(frameDurationMs),
                                           lossless ? 1 : 0, quality, out, err)
            }
        }
    }

    /// Calls a C encoder, copies its buffer out and frees it, or throws its error.
    private static func run(_ encode: (UnsafeMutablePointer<imago_buffer>, UnsafeMutablePointer<imago_error>) -> imago_status) throws -> [UInt8] {
        var buffer = imago_buffer()
        var error = imago_error()
        let status = encode(&buffer, &error)
        defer { imago_buffer_free(&buffer) }
        guard status == IMAGO_OK, let data = buffer.data else {
            let message = withUnsafeBytes(of: error.message) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            throw EncodeError(status: Int32(status.rawValue), message: message.isEmpty ? "unknown error" : message)
        }
        return Array(UnsafeBufferPointer(start: data, count: buffer.size))
    }
}
