@_exported import ImagoRandom

/// What the model-based checks draw: a seed per check, and weighted choices.
extension SeededGenerator {
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
