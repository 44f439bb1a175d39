import Foundation

extension ImageDecoder {
    /// Decodes an image that arrives in `pieces`, through the push decoders, as the streaming
    /// fetch strategy does (without a memory budget to wait for): the same pixels as `decode`
    /// of the joined bytes. `onPreview` (default nil: no previews) receives each preview the
    /// image offers (progressive JPEG scans, Adam7 PNG passes), at most `previewMaxPixelSize`.
    public static func decodeStreaming(_ pieces: some Sequence<Data>, options: DecodeOptions = DecodeOptions(),
                                       previewMaxPixelSize: Int? = nil,
                                       onPreview: ((PixelBuffer, Int) -> Void)? = nil) throws(DecodeError) -> DecodedImage {
        let decoder = StreamingDecoder(options: options)
        for piece in pieces {
            let result = piece.withUnsafeBytes { raw in
                Result { () throws(DecodeError) in try decoder.pushAll(raw, previews: onPreview != nil) { decoder throws(DecodeError) in
                    guard let onPreview else { return }
                    let (pixels, detail) = try decoder.renderPreview(maxPixelSize: previewMaxPixelSize)
                    onPreview(pixels, detail)
                } }
            }
            if try result.get() == .complete { break }
        }
        return try decoder.finish()
    }
}

extension StreamingDecoder {
    /// Pushes every byte of `bytes`, starting the decode as soon as the header is read and
    /// calling `atPreview` at each preview stop; returns the last stop (`.complete` at the end
    /// of the image, else `.needsInput`).
    func pushAll(_ bytes: UnsafeRawBufferPointer, previews: Bool,
                 atPreview: (StreamingDecoder) throws(DecodeError) -> Void) throws(DecodeError) -> Stop {
        var offset = 0
        while true {
            let (consumed, stop) = try push(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += consumed
            switch stop {
            case .header: try start(previews: previews)
            case .preview: try atPreview(self)
            case .complete: return .complete
            case .needsInput: if offset >= bytes.count { return .needsInput }
            }
        }
    }
}
