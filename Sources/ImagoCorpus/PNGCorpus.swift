/// Turns 16-bit source samples into PNG samples of any legal colour type and depth, and
/// computes the reference from those exact samples (so the expectation is exact).
enum PNGCorpus {
    /// Samples at the PNG's own depth, one Int per channel, before bit packing.
    struct Plan {
        var width: Int
        var height: Int
        var channels: Int
        var values: [Int]
        var palette: [UInt8] = []
        var paletteAlpha: [UInt8] = []
        /// Key colour per channel (1 for gray, 3 for RGB) when the recipe uses one.
        var key: [Int]? = nil
    }

    static func render(_ source: CorpusSource, _ recipe: PNGRecipe) throws -> RenderedImage {
        let plan = makePlan(source, recipe)
        let rowBytes = (plan.width * plan.channels * recipe.bitDepth + 7) / 8
        let colorType: Encoders.PNGColorType = switch recipe.colorType {
        case .gray: .gray
        case .grayAlpha: .grayAlpha
        case .rgb: .rgb
        case .rgba: .rgba
        case .palette: .palette
        }
        let bytes = try Encoders.png(
            width: plan.width, height: plan.height, colorType: colorType, bitDepth: recipe.bitDepth,
            interlaced: recipe.interlaced, samples: pack(plan, depth: recipe.bitDepth, rowBytes: rowBytes),
            stride: rowBytes, palette: plan.palette, paletteAlpha: plan.paletteAlpha,
            transparentKey: plan.key.map { $0.map { UInt16($0) } })
        var metadata = ImageMetadata.still(colorModel: recipe.colorType.rawValue, bitDepth: recipe.bitDepth,
                                           hasAlpha: recipe.colorType == .grayAlpha || recipe.colorType == .rgba
                                               || recipe.transparency != .none)
        metadata.progressive = recipe.interlaced
        return RenderedImage(bytes: bytes, reference: reference(plan, depth: recipe.bitDepth), metadata: metadata)
    }

    static func reference(_ source: CorpusSource, _ recipe: PNGRecipe) -> RGBAImage {
        reference(makePlan(source, recipe), depth: recipe.bitDepth)
    }

    static func makePlan(_ source: CorpusSource, _ recipe: PNGRecipe) -> Plan {
        let samples = ProceduralImage(seed: source.seed, width: source.width, height: source.height,
                                      options: .init(alpha: source.alpha)).samples16()
        let depth = recipe.bitDepth
        let pixelCount = source.width * source.height
        let src = samples.values
        func q(_ v: UInt16) -> Int { SampleConversion.quantize(v, depth: depth) }
        var plan = Plan(width: source.width, height: source.height, channels: 1, values: [])
        switch recipe.colorType {
        case .gray, .grayAlpha:
            plan.channels = recipe.colorType == .gray ? 1 : 2
            plan.values.reserveCapacity(pixelCount * plan.channels)
            for p in 0..<pixelCount {
                plan.values.append(q(SampleConversion.luma16(src[p * 4], src[p * 4 + 1], src[p * 4 + 2])))
                if plan.channels == 2 { plan.values.append(q(src[p * 4 + 3])) }
            }
        case .rgb, .rgba:
            plan.channels = recipe.colorType == .rgb ? 3 : 4
            plan.values.reserveCapacity(pixelCount * plan.channels)
            for p in 0..<pixelCount {
                for c in 0..<plan.channels { plan.values.append(q(src[p * 4 + c])) }
            }
        case .palette:
            (plan.palette, plan.paletteAlpha) = palette(depth: depth, withAlpha: recipe.transparency == .paletteAlpha)
            plan.values = (0..<pixelCount).map { p in
                paletteIndex(SampleConversion.to8(src[p * 4]), SampleConversion.to8(src[p * 4 + 1]),
                             SampleConversion.to8(src[p * 4 + 2]), depth: depth)
            }
        }
        if recipe.transparency == .key, recipe.colorType == .gray || recipe.colorType == .rgb {
            stampKey(&plan, depth: depth)
        }
        return plan
    }

    /// Picks the centre pixel's value as the key and sets a block to exactly the key, so the
    /// key really occurs. At 16 bits a second block differs from the key only in the lowest
    /// bit: same 8-bit colour, but opaque, which catches decoders that compare after reducing.
    private static func stampKey(_ plan: inout Plan, depth: Int) {
        let (w, h, n) = (plan.width, plan.height, plan.channels)
        let centre = ((h / 2) * w + w / 2) * n
        let key = Array(plan.values[centre..<(centre + n)])
        plan.key = key
        let blockWidth = max(1, w / 5), blockHeight = max(1, h / 4)
        func fill(x0: Int, _ value: [Int]) {
            for y in (h / 8)..<min(h, h / 8 + blockHeight) {
                for x in x0..<min(w, x0 + blockWidth) {
                    for c in 0..<n { plan.values[(y * w + x) * n + c] = value[c] }
                }
            }
        }
        fill(x0: w / 8, key)
        if depth == 16 {
            var near = key
            near[0] ^= 1
            fill(x0: w / 8 + blockWidth + 1, near)
        }
    }

    /// Bits per channel of the palette cube at each depth: (red, green, blue); depth 1 is a
    /// two-colour luma palette instead.
    private static func cubeBits(depth: Int) -> (Int, Int, Int) {
        switch depth {
        case 2: return (1, 1, 0)
        case 4: return (1, 2, 1)
        default: return (3, 3, 2)
        }
    }

    /// A full palette of 2^depth colours; with alpha, tRNS covers the first three quarters of
    /// it (entries past tRNS are opaque by the PNG spec) and mixes 0, 255 and partial values.
    static func palette(depth: Int, withAlpha: Bool) -> (rgb: [UInt8], alpha: [UInt8]) {
        let count = 1 << depth
        var rgb: [UInt8] = []
        if depth == 1 {
            rgb = [24, 32, 48, 232, 224, 200]
        } else {
            let (rb, gb, bb) = cubeBits(depth: depth)
            func level(_ value: Int, _ bits: Int) -> UInt8 {
                bits == 0 ? 128 : UInt8(value * 255 / ((1 << bits) - 1))
            }
            for index in 0..<count {
                rgb.append(level(index >> (gb + bb), rb))
                rgb.append(level((index >> bb) & ((1 << gb) - 1), gb))
                rgb.append(level(index & ((1 << bb) - 1), bb))
            }
        }
        guard withAlpha else { return (rgb, []) }
        let alpha = (0..<max(1, count * 3 / 4)).map { i -> UInt8 in
            switch i % 4 {
            case 0: return 0
            case 1: return 255
            default: return UInt8((i * 53 + 40) & 0xFF)
            }
        }
        return (rgb, alpha)
    }

    private static func paletteIndex(_ r: UInt8, _ g: UInt8, _ b: UInt8, depth: Int) -> Int {
        if depth == 1 {
            return SampleConversion.luma16(UInt16(r) * 257, UInt16(g) * 257, UInt16(b) * 257) >= 32768 ? 1 : 0
        }
        let (rb, gb, bb) = cubeBits(depth: depth)
        func top(_ v: UInt8, _ bits: Int) -> Int { bits == 0 ? 0 : Int(v) >> (8 - bits) }
        return top(r, rb) << (gb + bb) | top(g, gb) << bb | top(b, bb)
    }

    /// Packs samples into PNG rows: MSB-first below 8 bits, big-endian at 16.
    static func pack(_ plan: Plan, depth: Int, rowBytes: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: rowBytes * plan.height)
        let perRow = plan.width * plan.channels
        for y in 0..<plan.height {
            let row = y * rowBytes
            for i in 0..<perRow {
                let v = plan.values[y * perRow + i]
                switch depth {
                case 16:
                    bytes[row + 2 * i] = UInt8(v >> 8)
                    bytes[row + 2 * i + 1] = UInt8(v & 0xFF)
                case 8:
                    bytes[row + i] = UInt8(v)
                default:
                    let bit = i * depth
                    bytes[row + bit / 8] |= UInt8(v << (8 - depth - bit % 8))
                }
            }
        }
        return bytes
    }

    /// RGBA 8-bit from the PNG samples: depth reduction, gray replication, palette lookup and
    /// tRNS exactly as the decoder must do them.
    static func reference(_ plan: Plan, depth: Int) -> RGBAImage {
        func to8(_ v: Int) -> UInt8 {
            depth == 16 ? SampleConversion.to8(UInt16(v)) : depth == 8 ? UInt8(v) : SampleConversion.expand(v, depth: depth)
        }
        let n = plan.channels
        let pixelCount = plan.width * plan.height
        var pixels = [UInt8](repeating: 255, count: pixelCount * 4)
        for p in 0..<pixelCount {
            let s = plan.values[(p * n)..<(p * n + n)]
            let o = p * 4
            if !plan.palette.isEmpty {
                let i = s[s.startIndex]
                pixels[o] = plan.palette[i * 3]
                pixels[o + 1] = plan.palette[i * 3 + 1]
                pixels[o + 2] = plan.palette[i * 3 + 2]
                pixels[o + 3] = i < plan.paletteAlpha.count ? plan.paletteAlpha[i] : 255
                continue
            }
            let color = n >= 3 ? Array(s.prefix(3)) : [s[s.startIndex], s[s.startIndex], s[s.startIndex]]
            pixels[o] = to8(color[0])
            pixels[o + 1] = to8(color[1])
            pixels[o + 2] = to8(color[2])
            if n == 2 || n == 4 { pixels[o + 3] = to8(s[s.startIndex + n - 1]) }
            if let key = plan.key, Array(s) == key { pixels[o + 3] = 0 }
        }
        return RGBAImage(width: plan.width, height: plan.height, pixels: pixels)
    }
}
