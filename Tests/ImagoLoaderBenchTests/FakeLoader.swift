import Foundation
import ImagoBench
import ImagoConformance

/// A fast loader for the bench's tests: fetches and decodes through the raw control, keeps each
/// image's size in a memory cache, has no disk cache and does not coalesce (every load that
/// misses makes its own request). It is not `OutcomeObserving`, so the bench times it through
/// `observe(_:)`.
@MainActor
final class FakeLoader: LoaderUnderTest {
    nonisolated static let subject = ConformanceSubject(name: "fake-memory", capabilities: [.memoryCache]) { _ in FakeLoader() }

    var sizes: [URL: (width: Int, height: Int)] = [:]
    var decodes = 0

    func makeModel(source: ConformanceSource?) -> any ModelUnderTest { FakeModel(loader: self, source: source) }
    var decodeCount: Int { decodes }
    var memoryCache: (any MemoryCacheProbe)? { nil }
    var diskCache: (any DiskCacheProbe)? { nil }
    var queuedFetchCount: Int? { nil }
}

@MainActor
final class FakeModel: ModelUnderTest {
    let loader: FakeLoader
    var source: ConformanceSource?
    private(set) var phase: ObservedPhase = .empty
    private var observers: [@Sendable (ObservedPhase) -> Void] = []

    init(loader: FakeLoader, source: ConformanceSource?) {
        self.loader = loader
        self.source = source
    }

    func observe(_ observer: @escaping @Sendable (ObservedPhase) -> Void) {
        observers.append(observer)
        observer(phase)
    }

    func load() {
        guard let url = source?.url else { return publish(.failure(.missingSource)) }
        if let hit = loader.sizes[url] { return publish(.success(origin: .memory, image: Self.fingerprint(hit))) }
        publish(.loading)
        Task { @MainActor in
            do {
                let image = try await RawControl().load(url)
                let size = (width: image.metadata.width, height: image.metadata.height)
                loader.decodes += 1
                loader.sizes[url] = size
                publish(.success(origin: .network, image: Self.fingerprint(size)))
            } catch {
                publish(.failure(.transport("\(error)")))
            }
        }
    }

    func cancel() {}
    func retry() { load() }
    func setSource(_ source: ConformanceSource?) { self.source = source }

    private func publish(_ phase: ObservedPhase) {
        self.phase = phase
        for observer in observers { observer(phase) }
    }

    /// The bench reads sizes only; the digest names the fake, not the pixels.
    private static func fingerprint(_ size: (width: Int, height: Int)) -> ImageFingerprint {
        ImageFingerprint(width: size.width, height: size.height, digest: "fake")
    }
}
