import CImagoTestCodecs

/// Runs a CPU-bound measurement on one core, so that its samples do not vary with where the
/// scheduler happens to put the thread (a migration costs the cache, and the other core may be
/// busy with something else).
///
/// The core is the last CPU the process may run on, and only when it may run on at least two:
/// CPU 0 takes most of the interrupts, and a one-CPU set has nothing to choose. The pin is on the
/// calling thread for the duration of `pinned(_:)`; the processes a measurement starts inside it
/// (the peers' warm sessions and cold processes, Imago's cold-process children) inherit it, so
/// every interleaved variant of a comparison runs on the same core. Only Linux pins.
public enum CorePinning {
    /// The CPUs the calling thread may run on, ascending (empty when the set cannot be read).
    public static func allowedCPUs() -> [Int] {
        var mask = imago_cpu_mask()
        guard imago_bench_affinity_get(&mask) == 0 else { return [] }
        return withUnsafeBytes(of: &mask.bits) { bytes in
            bytes.bindMemory(to: UInt64.self).enumerated().flatMap { word, bits in
                (0..<64).filter { bits & (1 << UInt64($0)) != 0 }.map { word * 64 + $0 }
            }
        }
    }

    /// The core CPU-bound scenarios pin to: the last allowed CPU when at least two are allowed,
    /// else nil (not pinned).
    public static func chosenCore() -> Int? {
        let cpus = allowedCPUs()
        return cpus.count >= 2 ? cpus.last : nil
    }

    /// Runs `body` with the calling thread pinned to `chosenCore()` (passed to it; nil when not
    /// pinned) and restores the thread's previous CPU set afterwards. `body` must not suspend:
    /// the pin belongs to a thread, not to a task.
    public static func pinned<T>(_ body: (_ core: Int?) throws -> T) rethrows -> T {
        var previous = imago_cpu_mask()
        guard let core = chosenCore(), imago_bench_affinity_get(&previous) == 0 else { return try body(nil) }
        var only = imago_cpu_mask()
        withUnsafeMutableBytes(of: &only.bits) { bytes in
            bytes.bindMemory(to: UInt64.self)[core / 64] = 1 << UInt64(core % 64)
        }
        guard imago_bench_affinity_set(&only) == 0 else { return try body(nil) }
        defer { _ = imago_bench_affinity_set(&previous) }
        return try body(core)
    }

    /// What the report says about pinning: the core and what ran on it, or why nothing was pinned.
    public static func reportLine(core: Int?) -> String {
        core.map { "CPU \($0) for the decode and thumbnail scenarios (every variant of a comparison, the peers' processes included)" }
            ?? "not pinned (the process may run on one CPU only)"
    }
}
