/// A width and height in pixels.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Columns, in pixels.
    public var width: Int
    /// Rows, in pixels.
    public var height: Int
    /// A size of `width` × `height` pixels; not checked (a box of 0 or less counts as 1 where
    /// ``DecodeOptions`` fits to it).
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    /// `WIDTHxHEIGHT`, e.g. "640x480": the form the CLI prints and parses.
    public var description: String { "\(width)x\(height)" }
}

/// How to decode. Part of a request's identity: everything here changes the pixels.
public struct DecodeOptions: Sendable, Hashable, Codable {
    /// Longest side of the output, in pixels; the image is scaled down to fit, keeping its
    /// aspect ratio, and never scaled up. Default nil: full size.
    public var maxPixelSize: Int?
    /// A box the output must fit in (aspect ratio kept, never scaled up), measured in display
    /// orientation when `applyOrientation` is set. Default nil: no box.
    public var targetSize: PixelSize?
    /// Rotate/flip the pixels as the JPEG's EXIF orientation says. Default false: the
    /// orientation is reported in metadata and the pixels are returned as stored.
    public var applyOrientation: Bool
    /// Decode-bomb guard: the most source pixels (header width × height) Imago will decode.
    /// Checked from the header before any pixel memory is allocated. Default 100,000,000
    /// (100 MP, 400 MB of RGBA).
    public var pixelLimit: Int

    /// The default ``pixelLimit``: 100,000,000 source pixels.
    public static let defaultPixelLimit = 100_000_000

    /// Options with every default: full size, orientation reported but not applied, and a
    /// ``defaultPixelLimit`` (100 MP) decode-bomb guard.
    public init(maxPixelSize: Int? = nil, targetSize: PixelSize? = nil,
                applyOrientation: Bool = false, pixelLimit: Int = DecodeOptions.defaultPixelLimit) {
        self.maxPixelSize = maxPixelSize
        self.targetSize = targetSize
        self.applyOrientation = applyOrientation
        self.pixelLimit = pixelLimit
    }

    /// Output size for a source of `width` × `height` as stored; `swapsAxes` is true when the
    /// orientation to be applied turns the image by 90 degrees (the box is in display terms).
    func outputSize(width: Int, height: Int, swapsAxes: Bool) -> PixelSize {
        var boxW = Int.max, boxH = Int.max
        if let m = maxPixelSize { boxW = max(1, m); boxH = max(1, m) }
        if let t = targetSize {
            let (tw, th) = swapsAxes ? (t.height, t.width) : (t.width, t.height)
            boxW = min(boxW, max(1, tw))
            boxH = min(boxH, max(1, th))
        }
        guard width > boxW || height > boxH else { return PixelSize(width: width, height: height) }
        let scale = min(Double(boxW) / Double(width), Double(boxH) / Double(height))
        let w = min(width, boxW, max(1, Int((Double(width) * scale).rounded())))
        let h = min(height, boxH, max(1, Int((Double(height) * scale).rounded())))
        return PixelSize(width: w, height: h)
    }
}
