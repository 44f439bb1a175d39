import BlogLoader
import Foundation
import ImagoConformance

/// The blog loader as the conformance suite drives it: one `ImageLoader` per `LoaderContext`,
/// configured from it (directory, memory limits; the loader has no disk size limit to set).
@MainActor
public final class BlogLoaderAdapter: LoaderUnderTest {
    let loader: ImageLoader

    public init(context: LoaderContext) throws {
        let memory = MemoryImageCache(costLimit: context.memoryCostLimit ?? 64 << 20,
                                      entryCostLimit: context.memoryEntryCostLimit)
        loader = ImageLoader(memory: memory, disk: try DiskImageCache(directory: context.cacheDirectory))
    }

    static func request(_ source: ConformanceSource) -> ImageRequest {
        ImageRequest(url: source.url, maxPixelSize: source.maxPixelSize)
    }

    public func makeModel(source: ConformanceSource?) -> any ModelUnderTest {
        BlogModelAdapter(ImageModel(loader: loader, request: source.map(Self.request)))
    }

    public var decodeCount: Int { loader.decodeCount }
    public var memoryCache: (any MemoryCacheProbe)? { BlogMemoryProbe(cache: loader.memory) }
    public var diskCache: (any DiskCacheProbe)? { BlogDiskProbe(cache: loader.disk) }
    public var queuedFetchCount: Int? { nil }
}

/// Publishes the model's phases in the suite's vocabulary. `OutcomeObserving` lets the loader
/// bench (blog-bench) time the pixels being ready without the fingerprint `observe(_:)` computes.
@MainActor
public final class BlogModelAdapter: ModelUnderTest, OutcomeObserving {
    let model: ImageModel

    init(_ model: ImageModel) { self.model = model }

    public var phase: ObservedPhase { Self.observed(model.phase) }

    public func observe(_ observer: @escaping @Sendable (ObservedPhase) -> Void) {
        observer(phase)
        model.onPhaseChange { observer(Self.observed($0)) }
    }

    public func observeOutcome(_ observer: @escaping @Sendable (ObservedOutcome) -> Void) {
        let report: (ImageModel.Phase) -> Void = { phase in
            switch phase {
            case .success(let image, let origin):
                observer(.success(origin: Self.observed(origin), width: image.pixels.width, height: image.pixels.height))
            case .failure(let error): observer(.failure(Self.observed(error)))
            case .empty, .loading: break
            }
        }
        report(model.phase)
        model.onPhaseChange(report)
    }

    public func load() { model.load() }
    public func cancel() { model.cancel() }
    public func retry() { model.retry() }
    public func setSource(_ source: ConformanceSource?) { model.setRequest(source.map(BlogLoaderAdapter.request)) }

    static func observed(_ phase: ImageModel.Phase) -> ObservedPhase {
        switch phase {
        case .empty: .empty
        case .loading: .loading
        case .success(let image, let origin): .success(origin: observed(origin), image: fingerprint(image))
        case .failure(let error): .failure(observed(error))
        }
    }

    static func fingerprint(_ image: LoadedImage) -> ImageFingerprint {
        ImageFingerprint(width: image.pixels.width, height: image.pixels.height, rgba: image.pixels.packedBytes())
    }

    static func observed(_ origin: ImageOrigin) -> ObservedOrigin {
        switch origin {
        case .memory: .memory
        case .disk: .disk
        case .network: .network
        }
    }

    static func observed(_ error: LoadError) -> ObservedFailure {
        switch error {
        case .missingSource: .missingSource
        case .httpStatus(let status): .httpStatus(status)
        case .emptyBody: .emptyData
        case .undecodable(let kind): .decoding(kind)
        case .network(let message): .transport(message)
        case .cancelled: .cancelled
        }
    }
}
