/// A reproducible source of randomness for the model-based checks: SplitMix64 (Steele, Lea and
/// Flood, "Fast splittable pseudorandom number generators", 2014), whose whole state is one
/// 64-bit word, so a seed printed in a report replays the same operation sequences on any
/// machine. Not for cryptography.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed of one check's sequences: `seed` mixed with the check's ID, so a check's
    /// sequences stay the same whichever other checks a run selects (`--rule`).
    public static func seed(_ seed: UInt64, for check: String) -> UInt64 {
        // FNV-1a over the ID's bytes: stable across processes, unlike `Hasher`.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in check.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        var generator = SeededGenerator(seed: seed ^ hash)
        return generator.next()
    }

    /// One of `weighted`'s values, each chosen with probability proportional to its weight
    /// (weights of zero are never chosen; at least one must be positive).
    public mutating func pick<Value>(_ weighted: [(Value, Int)]) -> Value {
        let total = weighted.reduce(0) { $0 + max(0, $1.1) }
        precondition(total > 0, "pick needs a positive weight")
        var roll = Int.random(in: 0..<total, using: &self)
        for (value, weight) in weighted where weight > 0 {
            if roll < weight { return value }
            roll -= weight
        }
        return weighted.last { $0.1 > 0 }!.0
    }
}
