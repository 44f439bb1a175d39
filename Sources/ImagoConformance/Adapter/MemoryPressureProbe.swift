/// The levels of memory pressure MEM-4 delivers.
public enum SimulatedPressureLevel: String, Sendable, CaseIterable {
    /// Memory is getting short: drop what is cheap to rebuild.
    case warning
    /// The process is about to be killed: drop everything that can be dropped.
    case critical
}

/// A loader's memory-pressure hook, as MEM-4 triggers it (required with `.memoryPressure`).
@MainActor
public protocol MemoryPressureProbe: AnyObject {
    /// Delivers a pressure event of `level` through the path the loader's real pressure source
    /// takes (the event its cgroup or OS monitor would deliver, to the handler the loader
    /// registered), never by calling the cache's trim directly: the check is only as honest as
    /// this path. The loader may respond asynchronously; MEM-4 waits up to 5 s for the cache to
    /// shrink.
    func simulateMemoryPressure(_ level: SimulatedPressureLevel)
}

extension LoaderUnderTest {
    /// No probe by default: for loaders that do not declare `.memoryPressure`.
    public var memoryPressure: (any MemoryPressureProbe)? { nil }
}
