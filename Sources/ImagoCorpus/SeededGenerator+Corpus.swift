@_exported import ImagoRandom

/// What the corpus generator draws: floats that are exactly the same everywhere, integers in a
/// range, and coordinate hashes.
extension SeededGenerator {
    /// A uniform `Float` in [0, 1) with 24 bits of precision (exactly representable, so the
    /// value is the same everywhere).
    public mutating func unitFloat() -> Float {
        Float(next() >> 40) * (1.0 / 16_777_216.0)
    }

    /// A uniform `Float` in [lower, upper).
    public mutating func float(_ lower: Float, _ upper: Float) -> Float {
        lower + (upper - lower) * unitFloat()
    }

    /// A uniform integer in `range`, by rejection-free multiply-shift (tiny bias is irrelevant
    /// for test content; stability across platforms is what matters).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound + 1)
        return range.lowerBound + Int(next().multipliedFullWidth(by: span).high)
    }

    /// Hash of a 2-D integer coordinate under a seed and a layer number.
    @inline(__always)
    public static func hash(seed: UInt64, layer: UInt64, x: Int, y: Int) -> UInt64 {
        let a = seed &+ layer &* 0xD6E8_FEB8_6659_FD93
        let b = UInt64(bitPattern: Int64(x)) &* 0x9E37_79B9_7F4A_7C15
        let c = UInt64(bitPattern: Int64(y)) &* 0xC2B2_AE3D_27D4_EB4F
        return mix(a ^ b ^ mix(c))
    }
}
