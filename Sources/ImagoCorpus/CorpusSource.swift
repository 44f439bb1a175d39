/// Everything needed to regenerate a corpus image and its reference, recorded in the manifest
/// so a test can rebuild reference pixels from the entry alone.
public struct CorpusSource: Codable, Sendable, Equatable {
    /// ProceduralImage seed (frame i of an animation uses seed + i).
    public var seed: UInt64
    /// Size of the source image as displayed (for EXIF-rotated JPEGs the stored size differs).
    public var width: Int
    public var height: Int
    public var alpha: AlphaPattern
    /// Exactly one of these is set, matching the entry's format.
    public var png: PNGRecipe?
    public var jpeg: JPEGRecipe?
    public var webp: WebPRecipe?

    public init(seed: UInt64, width: Int, height: Int, alpha: AlphaPattern = .none,
                png: PNGRecipe? = nil, jpeg: JPEGRecipe? = nil, webp: WebPRecipe? = nil) {
        self.seed = seed
        self.width = width
        self.height = height
        self.alpha = alpha
        self.png = png
        self.jpeg = jpeg
        self.webp = webp
    }
}

/// How source samples become a PNG.
public struct PNGRecipe: Codable, Sendable, Equatable {
    public enum ColorType: String, Codable, Sendable, CaseIterable {
        case gray, grayAlpha, rgb, rgba, palette
    }

    public enum Transparency: String, Codable, Sendable {
        /// No tRNS chunk.
        case none
        /// Palette tRNS with fewer entries than the palette (the rest are opaque).
        case paletteAlpha
        /// Gray or RGB key colour; a block of pixels is set to exactly the key.
        case key
    }

    public var colorType: ColorType
    public var bitDepth: Int
    /// Adam7. Default false.
    public var interlaced: Bool
    /// Default `.none`.
    public var transparency: Transparency

    public init(_ colorType: ColorType, bitDepth: Int, interlaced: Bool = false, transparency: Transparency = .none) {
        self.colorType = colorType
        self.bitDepth = bitDepth
        self.interlaced = interlaced
        self.transparency = transparency
    }
}

/// How source samples become a JPEG.
public struct JPEGRecipe: Codable, Sendable, Equatable {
    public enum Input: String, Codable, Sendable {
        /// RGB, stored as YCbCr.
        case rgb
        /// Luma only.
        case gray
        /// Adobe-inverted CMYK stored as CMYK (Adobe transform 0).
        case cmyk
        /// Adobe-inverted CMYK stored as YCCK (Adobe transform 2).
        case ycck
    }

    public var input: Input
    /// 1-100.
    public var quality: Int
    /// Luma sampling "HxV": "2x2" (4:2:0), "2x1" (4:2:2), "1x1" (4:4:4), "1x2" (4:4:0). Default "2x2".
    public var sampling: String
    /// Default false.
    public var progressive: Bool
    /// Default false.
    public var arithmetic: Bool
    /// MCUs per restart interval, 0 = none. Default 0.
    public var restartInterval: Int
    /// EXIF orientation written, 0 = no EXIF. Stored pixels are the source un-oriented, so
    /// displaying them with this orientation shows the source. Default 0.
    public var orientation: Int

    public init(input: Input = .rgb, quality: Int, sampling: String = "2x2", progressive: Bool = false,
                arithmetic: Bool = false, restartInterval: Int = 0, orientation: Int = 0) {
        self.input = input
        self.quality = quality
        self.sampling = sampling
        self.progressive = progressive
        self.arithmetic = arithmetic
        self.restartInterval = restartInterval
        self.orientation = orientation
    }

    /// `sampling` as (h, v) factors; (2, 2) when malformed.
    var samplingFactors: (Int, Int) {
        let parts = sampling.split(separator: "x").compactMap { Int($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : (2, 2)
    }
}

/// How source samples become a WebP.
public struct WebPRecipe: Codable, Sendable, Equatable {
    public var lossless: Bool
    /// 0-100 (libwebp's effort/size trade-off for lossless).
    public var quality: Double
    /// Encode the alpha channel; false encodes opaque. Default true.
    public var keepAlpha: Bool
    /// Frames of an animation; 1 is a still image. Default 1.
    public var frameCount: Int
    /// Per-frame duration for animations. Default 100.
    public var frameDurationMs: Int

    public init(lossless: Bool, quality: Double, keepAlpha: Bool = true, frameCount: Int = 1, frameDurationMs: Int = 100) {
        self.lossless = lossless
        self.quality = quality
        self.keepAlpha = keepAlpha
        self.frameCount = frameCount
        self.frameDurationMs = frameDurationMs
    }
}
