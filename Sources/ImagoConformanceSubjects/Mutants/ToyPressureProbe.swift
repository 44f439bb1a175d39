import ImagoConformance

/// The toy has no pressure monitor of its own: its handler is the whole path, called as the
/// app's memory-warning observer would call it.
@MainActor
final class ToyPressureProbe: MemoryPressureProbe {
    let loader: ToyLoader
    init(_ loader: ToyLoader) { self.loader = loader }

    func simulateMemoryPressure(_ level: SimulatedPressureLevel) { loader.handleMemoryPressure(level) }
}
