import Imago

/// The pipeline configurations the pressure scenario compares.
public enum PressureMode: String, Codable, Sendable, CaseIterable {
    /// `ImagePipeline(configuration: .init())`: what a user gets without tuning anything.
    case defaults
    /// The behaviour before issue 10: a 512 MiB memory cache whatever the machine has, no decode
    /// memory budget, no reaction to memory pressure, a 64 MiB pixel reuse pool.
    case budgetAndPressureOff = "budget-and-pressure-off"

    /// Sets the process-wide pixel pool and returns the pipeline configuration of this mode. The
    /// one place the "off" configuration is spelled out.
    public func prepareConfiguration() -> ImagePipeline.Configuration {
        switch self {
        case .defaults:
            return .init()
        case .budgetAndPressureOff:
            PixelMemory.retainedByteLimit = 64 << 20
            return .init(dependencies: .init(memoryCache: MemoryCache(configuration: .init(costLimit: 512 << 20))),
                memory: .init(decodeBudget: .max, respondsToPressure: false))
        }
    }

}
