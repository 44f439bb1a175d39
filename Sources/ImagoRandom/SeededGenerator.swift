/// A deterministic pseudo-random source: SplitMix64 (Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", 2014), whose whole state is one 64-bit word.
///
/// One generator for everything in Imago that must repeat exactly: the corpus must be
/// byte-identical on every run and platform, a benchmark trace the same in every run, and a
/// conformance seed printed in a report must replay the same operation sequences anywhere. So
/// nothing here touches `SystemRandomNumberGenerator`, floating-point transcendental functions or
/// per-process hashing (Swift's `Hasher`); it is defined purely by 64-bit wrapping arithmetic.
/// Not for cryptography.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose whole output sequence is determined by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SeededGenerator.mix(state)
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
}
