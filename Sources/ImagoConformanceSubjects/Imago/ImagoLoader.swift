import Foundation
import Imago
import ImagoConformance

/// Adapts an `ImagePipeline` configured from a `LoaderContext` to the suite.
@MainActor
final class ImagoLoader: LoaderUnderTest {
    let pipeline: ImagePipeline
    /// The caches given to the pipeline, which the probes read.
    private let memory: (any ProbedMemoryCache)?
    private let disk: (any ProbedDiskCache)?
    /// This loader's own monitor, so MEM-4's simulated events reach this pipeline alone and no
    /// other loader's event falls within the monitor's same-level rate limit. It watches nothing
    /// real (`simulatedOnly`): a trim on the host's pressure would empty the cache a check is
    /// counting (the likely cause of one MEM-2 failure under load), and a verdict must not
    /// depend on the host.
    /// Only with a memory cache (MEM-4 needs one).
    let pressureMonitor: MemoryPressureMonitor?

    init(context: LoaderContext, defaultStrategy: LoaderContext.FetchStrategy, caches: ImagoSubjects.Caches) throws {
        if caches.memory {
            var configuration = MemoryCache<ImageRequestKey, DecodedImage>.Configuration()
            if let limit = context.memoryCostLimit { configuration.costLimit = limit }
            if let limit = context.memoryEntryCostLimit { configuration.entryCostLimit = limit }
            memory = CacheMutants.memoryCache(configuration, for: ActiveMutant.current)
        } else {
            memory = nil
        }
        if caches.disk {
            var configuration = DiskCache.Configuration()
            if let limit = context.diskSizeLimit { configuration.sizeLimit = limit }
            configuration.synchronizesWrites = false   // the suite checks publication, not power loss
            disk = try CacheMutants.diskCache(directory: context.cacheDirectory, configuration, for: ActiveMutant.current)
        } else {
            disk = nil
        }
        pressureMonitor = caches.memory ? MemoryPressureMonitor.simulatedOnly() : nil
        let strategy = context.fetchStrategy ?? defaultStrategy
        var configuration = ImagePipeline.Configuration(
            dependencies: .init(memoryCache: memory, diskCache: disk, clock: PipelineClock(sleepingOn: context.clock)),
            network: .init(fetchStrategy: Self.fetchStrategy(strategy),
                           retryPolicy: RetryPolicy(maxRetries: context.maxRetries, initialDelay: context.retryDelay),
                           temporaryDirectory: context.temporaryDirectory),
            limits: .init(maxConcurrentFetches: context.maxConcurrentFetches ?? 6),
            memory: .init(respondsToPressure: pressureMonitor != nil,
                          environment: .process(pressureMonitor: pressureMonitor ?? .shared)))
        // Previews come with the streaming strategy, always on there (PREVIEW-1, and the other
        // checks see what an app with previews on publishes), at the rate the check asks for.
        if strategy == .stream {
            var previews = PreviewPolicy()
            if let interval = context.previewInterval { previews.minimumInterval = interval }
            configuration.previews = previews
        }
        MutantParts.configure(&configuration, for: ActiveMutant.current)
        CacheMutants.configure(&configuration, for: ActiveMutant.current)
        pipeline = ImagePipeline(configuration: configuration)
        MutantParts.adopt(pipeline, for: ActiveMutant.current)
    }

    /// The same names on both sides; two types because the suite depends on no loader (Imago
    /// included), and a switch so a strategy added to either one fails to compile here.
    static func fetchStrategy(_ strategy: LoaderContext.FetchStrategy) -> FetchStrategy {
        switch strategy {
        case .data: .data
        case .file: .file
        case .stream: .stream
        }
    }

    func makeModel(source: ConformanceSource?) -> any ModelUnderTest {
        let cachePolicy = self.cachePolicy
        let request: @Sendable (ConformanceSource) -> ImageRequest = { Self.request($0, cachePolicy: cachePolicy) }
        let model = ModelMutants.model(pipeline: pipeline, request: source.map(request), for: ActiveMutant.current)
        return ImagoModel(model, request: request)
    }

    /// The cache policy of every request the adapter makes (default `.useCaches`).
    private var cachePolicy: ImageCachePolicy {
        MutantParts.cachePolicy(for: ActiveMutant.current)
    }

    var decodeCount: Int { pipeline.counters.snapshot.decodes }
    var memoryCache: (any MemoryCacheProbe)? { memory.map(ImagoMemoryProbe.init) }
    var diskCache: (any DiskCacheProbe)? { disk.map(ImagoDiskProbe.init) }
    var queuedFetchCount: Int? { pipeline.queuedFetchCount }
    var memoryPressure: (any MemoryPressureProbe)? { pressureMonitor.map(ImagoPressureProbe.init) }
    var lifetime: (any LifetimeProbe)? { ImagoLifetimeProbe(self) }

    nonisolated static func request(_ source: ConformanceSource, cachePolicy: ImageCachePolicy = .useCaches) -> ImageRequest {
        ImageRequest(source: .url(source.url), options: DecodeOptions(maxPixelSize: source.maxPixelSize),
                     cachePolicy: cachePolicy)
    }
}

/// Adapts an `ImageLoadingModel`. `OutcomeObserving` lets the loader bench time pixels-ready
/// without the SHA-256 fingerprint `observe(_:)` computes on every success.
@MainActor
final class ImagoModel: ModelUnderTest, OutcomeObserving {
    let model: ImageLoadingModel
    /// How the adapter turns a source into a request (`ImagoLoader.request`).
    private let request: @Sendable (ConformanceSource) -> ImageRequest

    init(_ model: ImageLoadingModel, request: @escaping @Sendable (ConformanceSource) -> ImageRequest) {
        self.model = model
        self.request = request
    }

    var phase: ObservedPhase { ImagoPhases.observed(model.phase) }

    func observe(_ observer: @escaping @Sendable (ObservedPhase) -> Void) {
        model.observe { phase in observer(ImagoPhases.observed(phase)) }
    }

    func observeOutcome(_ observer: @escaping @Sendable (ObservedOutcome) -> Void) {
        model.observe { phase in
            switch phase {
            case .success(let response):
                observer(.success(origin: ObservedOrigin(rawValue: response.origin.rawValue) ?? .network,
                                  width: response.pixels.width, height: response.pixels.height))
            case .failure(let error): observer(.failure(ImagoPhases.observed(error)))
            case .empty, .loading: break
            }
        }
    }

    /// The public `ImageLoadingModel.phases` stream, mapped phase by phase; ending iteration
    /// ends the underlying subscription.
    var phases: AsyncStream<ObservedPhase>? {
        let terminal = switch model.phase {
        case .success, .failure: true
        default: false
        }
        let source = ModelMutants.phases(model.phases, currentIsTerminal: terminal, for: ActiveMutant.current)
        return AsyncStream { continuation in
            let relay = Task { @MainActor in
                for await phase in source { continuation.yield(ImagoPhases.observed(phase)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }

    func load() { model.load() }
    func cancel() { model.cancel() }
    func retry() { model.retry() }
    func setSource(_ source: ConformanceSource?) { model.setRequest(source.map(request)) }

    func setPriority(_ priority: Int) {
        model.setPriority(ImageRequestPriority(rawValue: min(max(priority, 0), 4)) ?? .normal)
    }
}
