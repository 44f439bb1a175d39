import Foundation
import Imago
import ImagoConformance

/// MEM-4's trigger: the pipeline's own pressure monitor, delivering a simulated event through
/// the same observers and rate limit a cgroup notification goes through (`MemoryPressureMonitor
/// .simulate`), so the pipeline's handler (`respond(to:)` → `trimMemory`) runs as it would.
@MainActor
final class ImagoPressureProbe: MemoryPressureProbe {
    let monitor: MemoryPressureMonitor
    init(_ monitor: MemoryPressureMonitor) { self.monitor = monitor }

    func simulateMemoryPressure(_ level: SimulatedPressureLevel) {
        monitor.simulate(level == .critical ? .critical : .warning)
    }
}

/// MEM-5's view inside the adapter: the pipeline and its caches, the `ImageLoadingModel` behind
/// each model, and the live pixel buffers' bytes (`PixelMemory.liveBytes`, process-wide; pooled
/// free buffers are not counted).
@MainActor
final class ImagoLifetimeProbe: LifetimeProbe {
    let loader: ImagoLoader
    init(_ loader: ImagoLoader) { self.loader = loader }

    var loaderObjects: [AnyObject] {
        var objects: [AnyObject] = [loader.pipeline]
        if let monitor = loader.pressureMonitor { objects.append(monitor) }
        if let memory = loader.pipeline.configuration.dependencies.memoryCache { objects.append(memory) }
        if let disk = loader.pipeline.configuration.dependencies.diskCache { objects.append(disk) }
        return objects
    }

    func objects(behind model: any ModelUnderTest) -> [AnyObject] {
        (model as? ImagoModel).map { [$0.model] } ?? []
    }

    var liveDecodedBytes: Int? { PixelMemory.liveBytes }
}
