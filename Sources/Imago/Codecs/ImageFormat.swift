/// The encoded formats Imago decodes. Decided from magic bytes only, never from a file
/// extension or a Content-Type header.
public enum ImageFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// PNG, through libpng: 8-byte signature `89 50 4E 47 0D 0A 1A 0A`; Adam7 interlacing and
    /// 16-bit samples included.
    case png
    /// JPEG, through libjpeg-turbo: starts `FF D8 FF`; baseline, progressive and arithmetic-coded.
    case jpeg
    /// WebP, through libwebp: `RIFF`, a size, then `WEBP`; lossy, lossless and animated (first
    /// frame only).
    case webp
}

/// What the first bytes of a file say it is.
public enum SniffedFormat: Sendable, Equatable {
    /// PNG, JPEG or WebP: one Imago decodes.
    case supported(ImageFormat)
    /// A recognised format Imago does not decode ("gif", "bmp", "tiff", "heif/avif", ...).
    case unsupported(String)
    /// No signature Imago knows (``ImageDecoder`` reports it as `unsupportedFormat("unknown")`).
    case unknown

    /// Bytes needed to tell every format apart.
    public static let prefixLength = 16

    /// Reads the signature from the first ``prefixLength`` bytes of `bytes` (later bytes are
    /// ignored); fewer bytes recognise only the formats whose magic fits in them.
    public init(prefix bytes: some Collection<UInt8>) {
        let b = Array(bytes.prefix(Self.prefixLength))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + magic.count && Array(b[offset..<(offset + magic.count)]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .supported(.png)
        } else if starts([0xFF, 0xD8, 0xFF]) {
            self = .supported(.jpeg)
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .supported(.webp)
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .unsupported("gif")
        } else if starts(Array("BM".utf8)) {
            self = .unsupported("bmp")
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            self = .unsupported("tiff")
        } else if starts(Array("ftyp".utf8), at: 4) {
            self = .unsupported("heif/avif")
        } else if starts([0xFF, 0x0A]) || starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) {
            self = .unsupported("jpeg-xl")
        } else if starts([0x00, 0x00, 0x01, 0x00]) {
            self = .unsupported("ico")
        } else {
            self = .unknown
        }
    }
}
