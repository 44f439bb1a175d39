import Foundation

/// Corpus/manifest.json: what each corpus file is and what a correct decoder makes of it.
///
/// Written with sorted keys and pretty-printing so regeneration is byte-stable and diffs read
/// well. Optional fields are omitted when absent (never written as null).
public struct Manifest: Codable, Sendable, Equatable {
    /// Schema version; bumped on any incompatible change. Currently 1.
    public var version: Int
    /// Every corpus file, sorted by `file`.
    public var entries: [ManifestEntry]

    public init(version: Int = 1, entries: [ManifestEntry]) {
        self.version = version
        self.entries = entries.sorted { $0.file < $1.file }
    }

    /// Reads a manifest written by `CorpusGenerator`.
    public static func load(from url: URL) throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: url))
    }

    /// The canonical JSON bytes (sorted keys, pretty-printed, unescaped slashes, final newline).
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}

/// One corpus file.
public struct ManifestEntry: Codable, Sendable, Equatable {
    /// Path relative to the corpus directory, e.g. "png/gray-1.png".
    public var file: String
    /// "png", "jpeg" or "webp"; for invalid files the format the bytes claim to be, or "gif" /
    /// "unknown".
    public var format: String
    /// Dimensions as stored (before EXIF orientation); for invalid files what the header
    /// claims, 0 when no complete header is present or the format is not one Imago reads.
    public var width: Int
    public var height: Int
    public var expect: Expectation
    /// How the image was generated; absent for invalid files.
    public var source: CorpusSource?
    /// What the decoder should report about the image; absent for invalid files.
    public var metadata: ImageMetadata?
    /// How an invalid file was made; present only for invalid files.
    public var invalid: InvalidRecipe?

    public init(file: String, format: String, width: Int, height: Int, expect: Expectation,
                source: CorpusSource? = nil, metadata: ImageMetadata? = nil, invalid: InvalidRecipe? = nil) {
        self.file = file
        self.format = format
        self.width = width
        self.height = height
        self.expect = expect
        self.source = source
        self.metadata = metadata
        self.invalid = invalid
    }
}

/// The error a decoder must report for an invalid file.
public enum ExpectedError: String, Codable, Sendable, CaseIterable {
    case empty, unsupportedFormat, truncated, corrupt, tooLarge
}

/// What decoding the file must produce.
public struct Expectation: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// Decoded RGBA (orientation not applied) hashes to `rgbaSHA256`.
        case exact
        /// Decoded RGBA has `RGBAImage.psnr(of:).combined >= minPSNR` against the reference.
        case psnr
        /// Opening or decoding fails with `error`.
        case error
    }

    public var kind: Kind
    /// exact: SHA-256 (lowercase hex) of the expected RGBA bytes.
    public var rgbaSHA256: String?
    /// psnr: the floor, in dB, measured against the reference with some margin.
    public var minPSNR: Double?
    /// psnr: SHA-256 of the reference (orientation not applied), so a test can confirm that
    /// `CorpusCatalog.reference(for:orientationApplied:)` regenerated the right pixels.
    public var referenceSHA256: String?
    /// error: the error kind.
    public var error: ExpectedError?

    public static func exact(_ sha256: String) -> Expectation {
        Expectation(kind: .exact, rgbaSHA256: sha256)
    }

    public static func psnr(_ floor: Double, reference sha256: String) -> Expectation {
        Expectation(kind: .psnr, minPSNR: floor, referenceSHA256: sha256)
    }

    public static func error(_ error: ExpectedError) -> Expectation {
        Expectation(kind: .error, error: error)
    }
}

/// What the decoder's header parse should report (mirrors imago_image_info).
public struct ImageMetadata: Codable, Sendable, Equatable {
    /// Bits per sample as stored (1, 2, 4, 8 or 16).
    public var bitDepth: Int
    /// gray, grayAlpha, rgb, rgba, palette, ycbcr, cmyk or ycck.
    public var colorModel: String
    /// An alpha channel or a tRNS chunk is present.
    public var hasAlpha: Bool
    /// JPEG progressive or PNG Adam7.
    public var progressive: Bool
    /// JPEG arithmetic coding.
    public var arithmetic: Bool
    /// WebP VP8L.
    public var lossless: Bool
    /// EXIF orientation 1...8, 1 when absent.
    public var orientation: Int
    public var animated: Bool
    /// 1 for still images.
    public var frameCount: Int
}

/// How an invalid file was derived.
public struct InvalidRecipe: Codable, Sendable, Equatable {
    /// The valid corpus file it was made from, if any.
    public var base: String?
    /// truncate, badCRC, corruptZlib, corruptScan, corruptBitstream, hugeDimensions, text,
    /// gifHeader, empty.
    public var mutation: String
    /// Byte offset the mutation applies at (the cut point for truncate).
    public var offset: Int?
    /// One sentence on why the expected error is the honest one.
    public var note: String
}
