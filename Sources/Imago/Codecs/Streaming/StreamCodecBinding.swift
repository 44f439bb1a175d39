import CImagoCodecs

/// The three C push decoders (`imago_stream.h`) share one shape; this table lets one Swift
/// driver run any of them, as `CodecBinding` does for the pull decoders.
struct StreamCodecBinding: Sendable {
    typealias Push = @Sendable (OpaquePointer, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<Int>,
                                UnsafeMutablePointer<imago_stream_state>, UnsafeMutablePointer<imago_decode_control>?,
                                UnsafeMutablePointer<imago_error>) -> imago_status
    typealias Info = @Sendable (OpaquePointer, UnsafeMutablePointer<imago_image_info>) -> imago_status
    typealias Start = @Sendable (OpaquePointer, UnsafeMutablePointer<UInt8>, Int, UInt32, UInt32, Int32,
                                 UnsafeMutablePointer<imago_error>) -> imago_status
    typealias RenderPreview = @Sendable (OpaquePointer, UnsafeMutablePointer<UInt8>, Int, UInt32, UInt32,
                                         UnsafeMutablePointer<Int32>, UnsafeMutablePointer<imago_decode_control>?,
                                         UnsafeMutablePointer<imago_error>) -> imago_status
    typealias Finish = @Sendable (OpaquePointer, UnsafeMutablePointer<imago_error>) -> imago_status

    let format: ImageFormat
    let create: @Sendable (UnsafeMutablePointer<imago_error>) -> OpaquePointer?
    let push: Push
    let info: Info
    let start: Start
    let renderPreview: RenderPreview
    let finish: Finish
    let destroy: @Sendable (OpaquePointer) -> Void

    static func binding(for format: ImageFormat) -> StreamCodecBinding {
        switch format {
        case .png:
            StreamCodecBinding(
                format: .png, create: { imago_png_stream_create($0) },
                push: { imago_png_stream_push($0, $1, $2, $3, $4, $5, $6) },
                info: { imago_png_stream_info($0, $1) },
                start: { imago_png_stream_start($0, $1, $2, $3, $4, $5, $6) },
                renderPreview: { imago_png_stream_render_preview($0, $1, $2, $3, $4, $5, $6, $7) },
                finish: { imago_png_stream_finish($0, $1) },
                destroy: { imago_png_stream_destroy($0) })
        case .jpeg:
            StreamCodecBinding(
                format: .jpeg, create: { imago_jpeg_stream_create($0) },
                push: { imago_jpeg_stream_push($0, $1, $2, $3, $4, $5, $6) },
                info: { imago_jpeg_stream_info($0, $1) },
                start: { imago_jpeg_stream_start($0, $1, $2, $3, $4, $5, $6) },
                renderPreview: { imago_jpeg_stream_render_preview($0, $1, $2, $3, $4, $5, $6, $7) },
                finish: { imago_jpeg_stream_finish($0, $1) },
                destroy: { imago_jpeg_stream_destroy($0) })
        case .webp:
            StreamCodecBinding(
                format: .webp, create: { imago_webp_stream_create($0) },
                push: { imago_webp_stream_push($0, $1, $2, $3, $4, $5, $6) },
                info: { imago_webp_stream_info($0, $1) },
                start: { imago_webp_stream_start($0, $1, $2, $3, $4, $5, $6) },
                renderPreview: { imago_webp_stream_render_preview($0, $1, $2, $3, $4, $5, $6, $7) },
                finish: { imago_webp_stream_finish($0, $1) },
                destroy: { imago_webp_stream_destroy($0) })
        }
    }
}
