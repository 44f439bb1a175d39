import Foundation
import Imago
import ImagoConformance

/// The toy's view model. Bugs change what `load`, `cancel`, `setSource` and the result
/// delivery do; without bugs it follows every rule.
@MainActor
final class ToyModel: ModelUnderTest {
    private let loader: ToyLoader
    private var source: ConformanceSource?
    private(set) var phase: ObservedPhase = .empty
    private var observers: [@Sendable (ObservedPhase) -> Void] = []
    private var attempt = 0
    private var isLoading = false
    private var activeKey: String?
    private var joined: (load: ToyLoader.SharedLoad, source: ConformanceSource)?
    private var previous: ImageFingerprint?
    private var lastReceived = -1

    init(loader: ToyLoader, source: ConformanceSource?) {
        self.loader = loader
        self.source = source
    }

    /// A model released mid-load leaves its shared load, which stops when nobody else wants it,
    /// so nothing waits on the server for a model nobody has (MEM-5).
    isolated deinit { leave() }

    private var bugs: Set<MutantBug> { loader.bugs }

    func observe(_ observer: @escaping @Sendable (ObservedPhase) -> Void) {
        observer(phase)
        observers.append(bugs.contains(.observerCoalesces) ? CoalescingObserver(observer).observer : observer)
    }

    private func publish(_ next: ObservedPhase) {
        phase = next
        if next.isTerminal && bugs.contains(.publishesOffMainActor) {
            let observers = self.observers
            Thread.detachNewThread { for observer in observers { observer(next) } }
            return
        }
        for observer in observers { observer(next) }
    }

    func load() {
        guard let source else { return publish(.failure(.missingSource)) }
        let key = ToyLoader.key(source)
        if bugs.contains(.isLoadingGuard) {
            if isLoading { return }
        } else if activeKey == key, isLoading || phase.image != nil {
            return
        }
        if let failure = loader.rememberedFailures[key] {
            publish(.loading(received: nil, expected: nil, previous: previous))
            return publish(.failure(failure))
        }
        if let hit = loader.cachedImage(source) {
            activeKey = key
            if bugs.contains(.asynchronousMemoryHit) {
                publish(.loading(received: nil, expected: nil, previous: previous))
                Task { self.publish(.success(origin: .memory, image: hit.fingerprint)) }
                return
            }
            if phase.failure != nil { publish(.loading(received: nil, expected: nil, previous: previous)) }
            return publish(.success(origin: .memory, image: hit.fingerprint))
        }
        attempt += 1
        let current = attempt
        activeKey = key
        isLoading = true
        lastReceived = -1
        publish(.loading(received: nil, expected: nil, previous: previous))
        let shared = loader.join(source, observer: ObjectIdentifier(self)) { [weak self] progress in
            self?.progressed(progress, attempt: current)
        }
        joined = (shared, source)
        // Weakly: a model released while its load waits is not kept alive by it (MEM-5).
        Task { [weak self] in
            guard let outcome = await shared.task?.value else { return }
            self?.finished(outcome, attempt: current)
        }
    }

    private func progressed(_ progress: FetchProgress, attempt: Int) {
        guard attempt == self.attempt, isLoading, progress.received > lastReceived else { return }
        lastReceived = progress.received
        let total = progress.expected ?? (bugs.contains(.madeUpProgressTotal) ? progress.received : nil)
        publish(.loading(received: progress.received, expected: total, previous: previous))
    }

    private func finished(_ outcome: Result<ToyImage, ObservedFailure>, attempt: Int) {
        if bugs.contains(.isLoadingGuard) { isLoading = false }
        guard attempt == self.attempt || bugs.contains(.staleResultAfterSourceChange) else { return }
        isLoading = false
        joined = nil
        switch outcome {
        case .success(let image):
            previous = nil
            publish(.success(origin: image.origin, image: image.fingerprint))
        case .failure(.cancelled):
            activeKey = nil
            if bugs.contains(.cancellationPublishedAsFailure) { publish(.failure(.cancelled)) }
        case .failure(let failure):
            activeKey = nil
            publish(.failure(failure))
        }
    }

    func cancel() {
        guard isLoading || joined != nil else { return }
        if bugs.contains(.resultPublishedAfterCancel) {
            isLoading = false
            activeKey = nil
            return publish(.empty)   // the load goes on, and its result will land
        }
        leave()
        isLoading = false
        activeKey = nil
        if bugs.contains(.cancellationPublishedAsFailure) { return }   // the cancelled result is published
        attempt += 1
        if phase.image == nil { publish(.empty) }
    }

    func retry() {
        guard phase.failure != nil else { return }
        activeKey = nil
        load()
    }

    func setSource(_ newSource: ConformanceSource?) {
        guard newSource != source else { return }
        if let image = phase.image { previous = image }
        source = newSource
        activeKey = nil
        if bugs.contains(.staleResultAfterSourceChange) {
            isLoading = false
            return publish(.empty)   // the old load is neither cancelled nor disowned
        }
        leave()
        attempt += 1
        if !bugs.contains(.isLoadingGuard) { isLoading = false }
        publish(.empty)
    }

    private func leave() {
        guard let joined else { return }
        loader.leave(joined.load, joined.source, observer: ObjectIdentifier(self))
        self.joined = nil
    }
}
