/// The integer conversions between source samples and reference pixels. They are the contract
/// the decoder is held to, so each is spelled out once here and nowhere else.
public enum SampleConversion {
    /// 16-bit to 8-bit: round(v / 257), i.e. the nearest 8-bit value on the 0...255 scale.
    /// (v + 128) / 257 is exact: v / 257 is never exactly half-way because 257 is odd.
    @inline(__always)
    public static func to8(_ value: UInt16) -> UInt8 {
        UInt8((UInt32(value) + 128) / 257)
    }

    /// A sample of `depth` bits (1, 2, 4, 8) scaled to 8 bits: v * 255 / (2^depth - 1), exact
    /// for these depths (255 is divisible by 1, 3, 15 and 255).
    @inline(__always)
    public static func expand(_ value: Int, depth: Int) -> UInt8 {
        UInt8(value * 255 / ((1 << depth) - 1))
    }

    /// A 16-bit sample quantized to `depth` bits (1...16) by rounding to the nearest level.
    @inline(__always)
    public static func quantize(_ value: UInt16, depth: Int) -> Int {
        if depth == 16 { return Int(value) }
        let levels = UInt32((1 << depth) - 1)
        return Int((UInt32(value) * levels + 32767) / 65535)
    }

    /// Rec. 601 luma of a 16-bit colour, in integers (weights 19595 + 38470 + 7471 = 65536).
    @inline(__always)
    public static func luma16(_ r: UInt16, _ g: UInt16, _ b: UInt16) -> UInt16 {
        let red: UInt32 = 19595 * UInt32(r)
        let green: UInt32 = 38470 * UInt32(g)
        let blue: UInt32 = 7471 * UInt32(b)
        return UInt16((red + green + blue + 32768) >> 16)
    }

    /// Adobe-inverted CMYK (0 = full ink, as Photoshop stores it) to RGB: R = C * K / 255,
    /// rounded. The decoder is expected to do the same on the stored values.
    @inline(__always)
    public static func invertedCMYKToRGB(_ c: UInt8, _ m: UInt8, _ y: UInt8, _ k: UInt8) -> (UInt8, UInt8, UInt8) {
        let kk = UInt32(k)
        return (UInt8((UInt32(c) * kk + 127) / 255), UInt8((UInt32(m) * kk + 127) / 255),
                UInt8((UInt32(y) * kk + 127) / 255))
    }

    /// RGB to Adobe-inverted CMYK with maximal black: K = max(R, G, B), C = R * 255 / K etc.,
    /// so `invertedCMYKToRGB` returns the input within rounding (±1).
    @inline(__always)
    public static func rgbToInvertedCMYK(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (UInt8, UInt8, UInt8, UInt8) {
        let k = max(r, g, b)
        if k == 0 { return (0, 0, 0, 0) }
        let kk = UInt32(k)
        func scale(_ v: UInt8) -> UInt8 { UInt8(min(255, (UInt32(v) * 255 + kk / 2) / kk)) }
        return (scale(r), scale(g), scale(b), k)
    }
}
