import Foundation

/// Every memory default Imago derives from the process's effective memory limit `L`
/// (`MemoryLimit.current.bytes`: the cgroup's limit in a container, physical memory elsewhere).
///
/// | default | formula | at L = 256 MiB | at L = 24 GiB |
/// |---|---|---|---|
/// | memory cache cost limit | min(L / 10, 512 MiB) | 25.6 MiB | 512 MiB |
/// | pooled pixel memory (`PixelMemory.retainedByteLimit`) | min(L / 16, 64 MiB) | 16 MiB | 64 MiB |
/// | decode budget (all decodes in flight) | L / 4 | 64 MiB | 6 GiB |
/// | live and pooled pixels before a decode starts | 2/3 × L | 170 MiB | 16 GiB |
/// | largest single decode | L, and past the decode budget: L − (anonymous resident memory besides pixels) − L / 16 | 256 MiB | 24 GiB |
///
/// A limit smaller than what the process already uses still gives these figures (they only
/// get smaller); a decode whose own need exceeds L (or, larger than the decode budget, does not
/// fit beside what the process already holds: `DecodeStage.memoryRefusal`) fails with `.exceedsMemoryLimit` instead of
/// being admitted alone.
public struct MemoryBudgets: Sendable, Equatable {
    /// The effective limit the budgets derive from.
    public var limitBytes: Int

    /// The budgets of a limit of `limitBytes` (a negative one is read as 0).
    public init(limitBytes: Int) { self.limitBytes = max(0, limitBytes) }

    /// The budgets of the current effective limit.
    public static var current: MemoryBudgets { MemoryBudgets(limitBytes: MemoryLimit.current.bytes) }

    /// `min(L / 10, 512 MiB)`.
    public var memoryCacheCostLimit: Int { min(limitBytes / 10, 512 << 20) }
    /// `min(L / 16, 64 MiB)`.
    public var pixelMemoryRetainedLimit: Int { min(limitBytes / 16, 64 << 20) }
    /// `L / 4`.
    public var decodeBudget: Int { limitBytes / 4 }
    /// `2/3 × L`: a decode does not start while the pixel memory of the process (buffers
    /// alive: cached, just delivered, held by the app; and `PixelMemory`'s pool) plus its own
    /// need would pass this. It waits for buffers to be freed (at most `livePixelWait` while no
    /// other decode runs), and the pool is emptied first. The last third is for what is not
    /// pixels: measured at 40-45 MiB for the runtime, URLSession and eight bodies in flight
    /// in the pressure bench, plus room for the kernel's reclaim to keep up.
    public var livePixelCeiling: Int { limitBytes / 3 * 2 }
    /// How long a decode blocked only by `livePixelCeiling` waits while no other decode runs
    /// before it starts anyway (500 ms): pixels an app keeps delay decoding, never stop it.
    public static let livePixelWait: Duration = .milliseconds(500)
    /// How long a decode waits, while no other decode runs, when starting it would pass the
    /// cgroup's limit itself (the process's anonymous memory plus the decode's need plus
    /// `L / 16`) before it is refused with `.exceedsMemoryLimit` (10 s): an OOM kill would end
    /// every load, a refusal ends one.
    public static let cgroupFullWait: Duration = .seconds(10)
}
