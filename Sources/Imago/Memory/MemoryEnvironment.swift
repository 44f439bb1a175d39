import CImagoCodecs
import Foundation

/// Everything a pipeline's memory decisions read, as one value: the effective memory limit
/// (and the budgets derived from it), the pixel memory alive and pooled, the process's other
/// resident memory, and where pressure events come from. The default, `.process`, is this
/// process's (its cgroup, `PixelMemory`, /proc/self/statm, `MemoryPressureMonitor.shared`); a
/// test or an app supplies its own (`ImagePipeline.Configuration.Memory.environment`) to decide
/// as if under another limit, beside other pixel memory, or with its own pressure source. No
/// decision of the pipeline reads a global.
public struct MemoryEnvironment: Sendable {
    /// The effective memory limit now (default: `MemoryLimit.current`, which the pressure
    /// monitor re-reads on every event). Read at each decision: a limit can change.
    public var limit: @Sendable () -> MemoryLimit
    /// The pixel memory the decisions weigh, and the pool a decode that needs room empties
    /// (default `.process`: every `PixelBuffer` of this process and `PixelMemory`'s pool).
    public var pixels: PixelMemoryGauge
    /// Anonymous resident memory of the process, after giving back the heap the allocator keeps
    /// freed; nil where it cannot be read (default: /proc/self/statm after `malloc_trim`).
    public var anonymousResidentBytes: @Sendable () -> Int?
    /// Where pressure events come from when the pipeline responds to them (default
    /// `MemoryPressureMonitor.shared`, watching this process's cgroup).
    public var pressureMonitor: MemoryPressureMonitor

    /// An environment from its parts: `limit` is called at every decision; the rest default to this
    /// process's pixel memory, no resident-memory reading (nil: unknown) and the shared monitor.
    public init(limit: @escaping @Sendable () -> MemoryLimit, pixels: PixelMemoryGauge = .process,
                anonymousResidentBytes: @escaping @Sendable () -> Int? = { nil },
                pressureMonitor: MemoryPressureMonitor = .shared) {
        self.limit = limit
        self.pixels = pixels
        self.anonymousResidentBytes = anonymousResidentBytes
        self.pressureMonitor = pressureMonitor
    }

    /// This process's environment (the default of every pipeline).
    public static var process: MemoryEnvironment {
        MemoryEnvironment(limit: { MemoryLimit.current }, pixels: .process, anonymousResidentBytes: {
            _ = imago_heap_trim()
            return ResidentMemory.anonymousBytes(root: "/")
        })
    }

    /// This process's environment with pressure events from `pressureMonitor` (a monitor of
    /// the application's, or a private one in a test).
    public static func process(pressureMonitor: MemoryPressureMonitor) -> MemoryEnvironment {
        var environment = MemoryEnvironment.process
        environment.pressureMonitor = pressureMonitor
        return environment
    }

    /// A fixed limit of `bytes` with nothing else known: no cgroup usage to read, the process's
    /// pixel memory (tests of the budget rules; an app that wants a ceiling of its own).
    public static func fixedLimit(_ bytes: Int, pixels: PixelMemoryGauge = .process,
                                  pressureMonitor: MemoryPressureMonitor = .shared) -> MemoryEnvironment {
        let physical = MemoryLimit.physicalMemory()
        let limit = MemoryLimit(bytes: max(0, bytes), highBytes: nil, physicalBytes: physical, source: .physicalMemory,
                                cgroupDirectory: nil, cgroupVersion: nil,
                                explanation: "\(formatBytes(max(0, bytes))), a fixed limit the application supplied.")
        return MemoryEnvironment(limit: { limit }, pixels: pixels, pressureMonitor: pressureMonitor)
    }

    /// The budgets of the limit now.
    public var budgets: MemoryBudgets { MemoryBudgets(limitBytes: limit().bytes) }
}

/// The pixel memory a pipeline's decisions weigh: what is alive, what is pooled, and how to
/// give the pool back. `.process` is `PixelMemory`, the process's own.
public struct PixelMemoryGauge: Sendable {
    /// Bytes of pixel buffers alive.
    public var liveBytes: @Sendable () -> Int
    /// Bytes of freed pixel memory kept for reuse.
    public var retainedBytes: @Sendable () -> Int
    /// Gives every pooled byte back to the system.
    public var trim: @Sendable () -> Void
    /// Registers a listener called after any buffer is freed (nil: none is ever announced, and
    /// a decode waiting for pixel memory is re-judged only when its wait runs out).
    let addFreeListener: (@Sendable (AnyObject, @escaping @Sendable () -> Void) -> Void)?
    let removeFreeListener: (@Sendable (AnyObject) -> Void)?

    /// Pixel memory with the given readings and no free announcements.
    public init(liveBytes: @escaping @Sendable () -> Int, retainedBytes: @escaping @Sendable () -> Int = { 0 },
                trim: @escaping @Sendable () -> Void = {}) {
        self.init(liveBytes: liveBytes, retainedBytes: retainedBytes, trim: trim, addFreeListener: nil, removeFreeListener: nil)
    }

    init(liveBytes: @escaping @Sendable () -> Int, retainedBytes: @escaping @Sendable () -> Int,
         trim: @escaping @Sendable () -> Void,
         addFreeListener: (@Sendable (AnyObject, @escaping @Sendable () -> Void) -> Void)?,
         removeFreeListener: (@Sendable (AnyObject) -> Void)?) {
        self.liveBytes = liveBytes
        self.retainedBytes = retainedBytes
        self.trim = trim
        self.addFreeListener = addFreeListener
        self.removeFreeListener = removeFreeListener
    }

    /// This process's: every `PixelBuffer` alive and `PixelMemory`'s pool.
    public static let process = PixelMemoryGauge(
        liveBytes: { PixelMemory.liveBytes }, retainedBytes: { PixelMemory.retainedBytes }, trim: { PixelMemory.trim() },
        addFreeListener: { PixelMemory.addFreeListener($0, $1) }, removeFreeListener: { PixelMemory.removeFreeListener($0) })

    /// Live and pooled bytes together.
    var heldBytes: Int { liveBytes() + retainedBytes() }
}
