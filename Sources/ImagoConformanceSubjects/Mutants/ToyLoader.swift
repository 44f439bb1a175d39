import Foundation
import Imago
import ImagoConformance

/// A small, straightforward image loader — memory cache, disk cache, one shared load per key
/// with a subscriber count, retries, progress — that can be built with one of the bug classes in
/// `MutantBug` switched on. Without bugs it passes every rule it declares (it is the control);
/// with one, the suite must catch it.
@MainActor
final class ToyLoader: LoaderUnderTest {
    /// One load shared by the models that want the same key.
    @MainActor
    final class SharedLoad {
        var task: Task<Result<ToyImage, ObservedFailure>, Never>?
        var subscribers = 0
        var progressObservers: [ObjectIdentifier: (FetchProgress) -> Void] = [:]
    }

    let bugs: Set<MutantBug>
    /// What `setSource(_:)` does (default: the suite's, publish `empty` and wait for `load()`).
    let sourceChange: ToySourceChange
    let context: LoaderContext
    private let memory: any ToyMemoryCache
    private let disk: any ToyDiskCache
    private let fetcher: any ToyFetcher
    private var inFlight: [String: SharedLoad] = [:]
    /// Only with `.failuresCached`.
    var rememberedFailures: [String: ObservedFailure] = [:]
    private(set) var decodeCount = 0

    init(context: LoaderContext, bugs: Set<MutantBug>, sourceChange: ToySourceChange = .waitsForLoad) throws {
        self.bugs = bugs
        self.sourceChange = sourceChange
        self.context = context
        memory = bugs.contains(.costOrderedEviction) ? CostOrderedCache(context: context) : ToyLRUCache(context: context)
        disk = bugs.contains(.nonAtomicDiskWrites) ? InPlaceDiskCache(context: context) : try ToyAtomicDiskCache(context: context)
        if bugs.contains(.errorBodyDecoded) || bugs.contains(.truncatedBodyAccepted) {
            fetcher = TrustingFetcher(ignoresStatus: bugs.contains(.errorBodyDecoded),
                                      acceptsTruncation: bugs.contains(.truncatedBodyAccepted))
        } else {
            fetcher = CheckedFetcher(bugs: bugs)
        }
    }

    isolated deinit {
        (fetcher as? TrustingFetcher)?.invalidate()
    }

    static func key(_ source: ConformanceSource) -> String {
        source.url.absoluteString + (source.maxPixelSize.map { "@\($0)" } ?? "")
    }

    func makeModel(source: ConformanceSource?) -> any ModelUnderTest { ToyModel(loader: self, source: source) }
    var memoryCache: (any MemoryCacheProbe)? { memory }
    var diskCache: (any DiskCacheProbe)? { disk }
    var queuedFetchCount: Int? { nil }
    var memoryPressure: (any MemoryPressureProbe)? { ToyPressureProbe(self) }

    /// What the app's memory-warning observer calls: a warning halves what the memory cache
    /// holds (least recently used first), a critical empties it; loads go on.
    func handleMemoryPressure(_ level: SimulatedPressureLevel) {
        memory.trimNow(toCost: level == .critical ? 0 : memory.costNow / 2)
    }

    func cachedImage(_ source: ConformanceSource) -> ToyImage? { memory.value(forKey: Self.key(source)) }

    /// Joins (or starts) the load of `source`.
    func join(_ source: ConformanceSource, observer: ObjectIdentifier,
              progress: @escaping (FetchProgress) -> Void) -> SharedLoad {
        let key = Self.key(source)
        let shared: SharedLoad
        if !bugs.contains(.noCoalescing), let existing = inFlight[key] {
            shared = existing
        } else {
            shared = SharedLoad()
            if !bugs.contains(.noCoalescing) { inFlight[key] = shared }
            shared.task = Task { [weak self] in
                guard let self else { return .failure(.cancelled) }
                let outcome = await self.perform(source, shared)
                if self.inFlight[key] === shared { self.inFlight[key] = nil }
                if case .failure(let failure) = outcome, failure != .cancelled, self.bugs.contains(.failuresCached) {
                    self.rememberedFailures[key] = failure
                }
                return outcome
            }
        }
        shared.subscribers += 1
        shared.progressObservers[observer] = progress
        return shared
    }

    /// A model leaves; the load stops when nobody wants it any more.
    func leave(_ shared: SharedLoad, _ source: ConformanceSource, observer: ObjectIdentifier) {
        shared.subscribers -= 1
        shared.progressObservers[observer] = nil
        guard shared.subscribers == 0 || bugs.contains(.firstLeaverCancelsSharedFetch) else { return }
        shared.task?.cancel()
        if inFlight[Self.key(source)] === shared { inFlight[Self.key(source)] = nil }
    }

    private func perform(_ source: ConformanceSource, _ shared: SharedLoad) async -> Result<ToyImage, ObservedFailure> {
        if let data = disk.read(source.url) {
            if case .success(var image) = await decode(data, source) {
                memory.insert(image, forKey: Self.key(source))
                image.origin = .disk
                return .success(image)
            }
            disk.remove(source.url)   // a corrupt entry is a miss
        }
        var retries = 0
        while true {
            let outcome = await fetcher.fetch(source.url) { progress in
                Task { @MainActor in for observer in shared.progressObservers.values { observer(progress) } }
            }
            if Task.isCancelled { return .failure(.cancelled) }
            switch outcome {
            case .cancelled:
                return .failure(.cancelled)
            case .failed(let failure, let transient):
                guard transient, retries < context.maxRetries else { return .failure(failure) }
                retries += 1
                let delay = context.retryDelay * (1 << (retries - 1))
                do { try await context.clock.sleep(for: delay) } catch { return .failure(.cancelled) }
            case .body(let data, let storable):
                if storable && bugs.contains(.storesBeforeValidation) { disk.write(data, for: source.url) }
                let decoded = await decode(data, source)
                switch decoded {
                case .success(let image):
                    // Only bytes that decoded are stored (DISK-3).
                    if storable && !bugs.contains(.storesBeforeValidation) { disk.write(data, for: source.url) }
                    memory.insert(image, forKey: Self.key(source))
                case .failure: disk.remove(source.url)
                }
                return decoded
            }
        }
    }

    private func decode(_ data: Data, _ source: ConformanceSource) async -> Result<ToyImage, ObservedFailure> {
        decodeCount += 1
        do {
            let decoded = try await ImageDecoder.decode(data, options: DecodeOptions(maxPixelSize: source.maxPixelSize))
            return .success(ToyImage(fingerprint: ImagoPhases.fingerprint(decoded.pixels)))
        } catch {
            return .failure(error == .empty ? .emptyData : .decoding(error.kind))
        }
    }
}
