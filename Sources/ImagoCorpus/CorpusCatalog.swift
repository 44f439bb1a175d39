/// A valid corpus image: where it goes, how it is made, and how strictly it is checked.
public struct CorpusEntrySpec: Sendable {
    /// Path relative to the corpus directory.
    public let file: String
    /// "png", "jpeg" or "webp".
    public let format: String
    public let source: CorpusSource
    /// nil: the decoder must match the reference exactly. Otherwise the PSNR floor in dB,
    /// set a couple of dB under what libjpeg/libwebp's own tools achieve on the file.
    public let minPSNR: Double?
}

/// The reference cannot be rebuilt from this entry.
public struct CorpusError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// The list of valid corpus images and the single place that knows how to turn an entry into
/// its file and its reference pixels.
public enum CorpusCatalog {
    /// Every valid image, PNG then JPEG then WebP (invalid files: `InvalidCorpus`).
    public static var entries: [CorpusEntrySpec] {
        pngEntries + jpegEntries + webpEntries
    }

    /// The pixels a correct decoder produces for `entry`, regenerated from `entry.source`
    /// (no file is read and no decoder is involved). With `orientationApplied` false these are
    /// the stored pixels (the decoder's default output); with true, the EXIF orientation in
    /// the entry is applied, which for the orientation JPEGs gives back the source image.
    public static func reference(for entry: ManifestEntry, orientationApplied: Bool = false) throws -> RGBAImage {
        guard let source = entry.source else {
            throw CorpusError(description: "\(entry.file): no source recorded (an invalid file has no reference)")
        }
        let stored = try reference(for: source, file: entry.file)
        return orientationApplied ? stored.oriented(entry.metadata?.orientation ?? 1) : stored
    }

    /// Stored-orientation reference of a source description.
    public static func reference(for source: CorpusSource, file: String = "") throws -> RGBAImage {
        if let png = source.png { return PNGCorpus.reference(source, png) }
        if let jpeg = source.jpeg { return JPEGCorpus.reference(source, jpeg) }
        if let webp = source.webp { return WebPCorpus.reference(source, webp) }
        throw CorpusError(description: "\(file): source has no png, jpeg or webp recipe")
    }

    /// The encoded file for `spec`, exactly as `imago corpus` writes it.
    public static func encodedFile(for spec: CorpusEntrySpec) throws -> [UInt8] {
        try render(spec).bytes
    }

    /// Encodes an entry and computes its reference.
    static func render(_ spec: CorpusEntrySpec) throws -> RenderedImage {
        let source = spec.source
        if let png = source.png { return try PNGCorpus.render(source, png) }
        if let jpeg = source.jpeg { return try JPEGCorpus.render(source, jpeg) }
        if let webp = source.webp { return try WebPCorpus.render(source, webp) }
        throw CorpusError(description: "\(spec.file): source has no png, jpeg or webp recipe")
    }

    /// The seed of a file: FNV-1a of its path, so adding or reordering entries never changes
    /// another entry's content.
    static func seed(for file: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in file.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash >> 32 // small enough to read in the manifest, and exact in any JSON parser
    }

    /// `seedName` (default: the file path) lets a family of entries share one picture.
    static func spec(_ file: String, _ width: Int, _ height: Int, alpha: AlphaPattern = .none,
                     png: PNGRecipe? = nil, jpeg: JPEGRecipe? = nil, webp: WebPRecipe? = nil,
                     minPSNR: Double? = nil, seedName: String? = nil) -> CorpusEntrySpec {
        let format = png != nil ? "png" : jpeg != nil ? "jpeg" : "webp"
        let source = CorpusSource(seed: seed(for: seedName ?? file), width: width, height: height, alpha: alpha,
                                  png: png, jpeg: jpeg, webp: webp)
        return CorpusEntrySpec(file: file, format: format, source: source, minPSNR: minPSNR)
    }
}
