import Foundation
import Imago
import ImagoBench
import ImagoConformance

/// A fast loader for the bench's tests: fetches and decodes through the raw control, keeps each
/// image's size in a memory cache, has no disk cache and does not coalesce (every load that
/// misses makes its own request). It is not `OutcomeObserving`, so the bench times it through
/// `observe(_:)`. Its cancel cancels the control's task (which closes the connection), unless
/// it is made with `cancels: false`.
@MainActor
final class FakeLoader: LoaderUnderTest {
    nonisolated static let subject = ConformanceSubject(name: "fake-memory", capabilities: [.memoryCache]) { _ in FakeLoader() }
    /// A fake whose cancel only forgets the load: the request runs on to its end.
    nonisolated static let nonCancelling = ConformanceSubject(name: "fake-no-cancel", capabilities: [.memoryCache]) { _ in
        FakeLoader(cancels: false)
    }

    let cancels: Bool
    init(cancels: Bool = true) { self.cancels = cancels }

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
    private var task: Task<Void, Never>?
    /// Bumped by cancel(), so an abandoned load publishes nothing.
    private var attempt = 0

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
        attempt += 1
        let current = attempt
        task = Task { @MainActor in
            let result: Result<DecodedImage, any Error>
            do { result = .success(try await RawControl().load(url)) } catch { result = .failure(error) }
            guard current == attempt else { return }
            switch result {
            case .success(let image):
                let size = (width: image.metadata.width, height: image.metadata.height)
                loader.decodes += 1
                loader.sizes[url] = size
                publish(.success(origin: .network, image: Self.fingerprint(size)))
            case .failure(let error):
                publish(.failure(.transport("\(error)")))
            }
        }
    }

    func cancel() {
        guard case .loading = phase else { return }
        attempt += 1
        if loader.cancels { task?.cancel() }
        task = nil
        publish(.empty)
    }
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
