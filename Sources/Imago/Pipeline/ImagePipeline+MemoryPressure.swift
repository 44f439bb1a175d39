import CImagoCodecs
import Foundation

extension ImagePipeline {
    /// How long new decode admissions wait after a critical memory-pressure event (250 ms, a
    /// constant): time for the freed cache and pool pages to reach the kernel and for running
    /// decodes to finish, without stalling loads for long if the pressure passes.
    public static let criticalPressureHold: Duration = .milliseconds(250)

    /// Gives back memory the pipeline keeps for speed, not correctness.
    /// - `.warning`: trims the memory cache to half of what it holds now (least recently used
    ///   first; half of its cost limit would free nothing when that limit is larger than the
    ///   process's memory) and returns pooled pixel memory (`MemoryEnvironment.pixels.trim`).
    /// - `.critical`: empties the memory cache, returns pooled pixel memory and freed malloc
    ///   heap, and holds new decode admissions for `criticalPressureHold` (decodes already
    ///   running finish; queued ones wait, in order, then go on).
    /// - `.normal`: nothing.
    /// Called on every pressure event when `Configuration.Memory.respondsToPressure` is set; an
    /// app may call it itself (e.g. when it goes to the background).
    public func trimMemory(_ level: MemoryPressureLevel) {
        trimMemory(level, cause: .app)
    }

    /// `trimMemory(_:)`, reported as made for `cause`.
    private func trimMemory(_ level: MemoryPressureLevel, cause: PipelineMetrics.TrimCause) {
        guard level != .normal else { return }
        if let cache = configuration.dependencies.memoryCache {
            let before = cache.totalCost
            cache.trim(toCost: level == .critical ? 0 : before / 2)
            diagnostics.memoryCacheTrimmed(cause, fromCost: before, toCost: cache.totalCost)
        }
        configuration.memory.environment.pixels.trim()
        if level == .critical {
            _ = imago_heap_trim()
            decodeStage.limiter.holdAdmissions(until: .now + Self.criticalPressureHold)
        }
    }

    /// What the pipeline does with a pressure event it observes.
    func respond(to event: MemoryPressureEvent) {
        guard event.level != .normal else { return }
        diagnostics.memoryPressure(event.level)
        trimMemory(event.level, cause: .pressure)
    }
}
