import CImagoCodecs

/// The three C decoders share one shape (open header → decode into caller memory → close);
/// this table lets one Swift driver run any of them.
struct CodecBinding: Sendable {
    typealias Open = @Sendable (UnsafePointer<imago_input>, UnsafeMutablePointer<imago_image_info>,
                                UnsafeMutablePointer<imago_error>) -> OpaquePointer?
    typealias Decode = @Sendable (OpaquePointer, UnsafeMutablePointer<UInt8>, Int, UInt32, UInt32,
                                  UnsafeMutablePointer<imago_decode_control>?, UnsafeMutablePointer<imago_error>) -> imago_status
    typealias Close = @Sendable (OpaquePointer?) -> Void

    let format: ImageFormat
    let open: Open
    let decode: Decode
    let close: Close

    static func binding(for format: ImageFormat) -> CodecBinding {
        switch format {
        case .png:
            CodecBinding(format: .png, open: { imago_png_open($0, $1, $2) },
                         decode: { imago_png_decode($0, $1, $2, $3, $4, $5, $6) },
                         close: { imago_png_close($0) })
        case .jpeg:
            CodecBinding(format: .jpeg, open: { imago_jpeg_open($0, $1, $2) },
                         decode: { imago_jpeg_decode($0, $1, $2, $3, $4, $5, $6) },
                         close: { imago_jpeg_close($0) })
        case .webp:
            CodecBinding(format: .webp, open: { imago_webp_open($0, $1, $2) },
                         decode: { imago_webp_decode($0, $1, $2, $3, $4, $5, $6) },
                         close: { imago_webp_close($0) })
        }
    }
}

extension imago_error {
    var messageText: String {
        withUnsafeBytes(of: message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    func decodeError(format: ImageFormat) -> DecodeError {
        switch UInt32(bitPattern: status) {
        case IMAGO_ERR_EMPTY.rawValue: .empty
        case IMAGO_ERR_TRUNCATED.rawValue: .truncated(format: format)
        case IMAGO_ERR_CANCELLED.rawValue: .cancelled
        case IMAGO_ERR_UNSUPPORTED.rawValue: .unsupportedFormat("\(format.rawValue): \(messageText)")
        case IMAGO_ERR_NO_MEMORY.rawValue: .outOfMemory(byteCount: 0)
        case IMAGO_ERR_IO.rawValue: .unreadable(path: "", reason: messageText)
        default: .corrupt(format: format, message: messageText)
        }
    }
}

extension ImageMetadata {
    init(format: ImageFormat, info: imago_image_info, orientationApplied: Bool) {
        let model: ColorModel = switch info.color_model {
        case Int32(IMAGO_COLOR_GRAY.rawValue): .gray
        case Int32(IMAGO_COLOR_GRAY_ALPHA.rawValue): .grayAlpha
        case Int32(IMAGO_COLOR_RGB.rawValue): .rgb
        case Int32(IMAGO_COLOR_RGBA.rawValue): .rgba
        case Int32(IMAGO_COLOR_PALETTE.rawValue): .palette
        case Int32(IMAGO_COLOR_CMYK.rawValue): .cmyk
        case Int32(IMAGO_COLOR_YCCK.rawValue): .ycck
        default: .ycbcr
        }
        self.init(format: format, width: Int(info.width), height: Int(info.height),
                  bitDepth: Int(info.bit_depth), colorModel: model, hasAlpha: info.has_alpha != 0,
                  orientation: Int(info.orientation), orientationApplied: orientationApplied,
                  isProgressive: info.progressive != 0, isArithmeticCoded: info.arithmetic != 0,
                  isLossless: info.lossless != 0, isAnimated: info.animated != 0,
                  frameCount: Int(info.frame_count))
    }
}
