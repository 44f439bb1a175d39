/// A deterministic pseudo-random source for the corpus generator.
///
/// The corpus must be byte-identical on every run and every platform, so nothing here touches
/// `SystemRandomNumberGenerator`, floating-point transcendental functions or hashing that varies
/// per process (Swift's `Hasher` is seeded per process). SplitMix64 is tiny, statistically good
/// enough for test content, and is defined purely by 64-bit wrapping integer arithmetic.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose whole output sequence is determined by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SeededGenerator.mix(state)
    }

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

    /// The SplitMix64 finalizer: a stateless 64-bit mixing function. Used directly as a
    /// coordinate hash (lattice noise, grain) so any pixel can be computed without running a
    /// sequential generator up to it.
    @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
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
