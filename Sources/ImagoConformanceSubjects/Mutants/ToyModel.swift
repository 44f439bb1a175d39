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
    /// With `.reloadsKeepingPhase`: the attempt a source change started, whose `loading` is
    /// published a turn later unless something of it was published first.
    private var keptPhaseAttempt: Int?
    /// The last attempt a reload superseded: only the profile's bugs look at it.
    private var attemptSupersededByReload: Int?

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
        keptPhaseAttempt = nil
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
        startAttempt(source, key: key)
    }

    /// A new attempt that joins the shared load of `source`: `loading` published at once, or
    /// (`keepingPhase`) a main-actor turn later, the phase before it kept meanwhile.
    private func startAttempt(_ source: ConformanceSource, key: String, keepingPhase: Bool = false) {
        attempt += 1
        let current = attempt
        activeKey = key
        isLoading = true
        lastReceived = -1
        if keepingPhase {
            keptPhaseAttempt = current
            Task { [weak self] in
                guard let self, self.keptPhaseAttempt == current else { return }
                self.publish(.loading(received: nil, expected: nil, previous: self.previous))
            }
        } else {
            publish(.loading(received: nil, expected: nil, previous: previous))
        }
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
        let supersededByReload = attempt == attemptSupersededByReload
        guard attempt == self.attempt || bugs.contains(.staleResultAfterSourceChange)
                || (supersededByReload && loader.sourceChange.bug == .staleResultAfterReload) else {
            if supersededByReload, loader.sourceChange.bug == .supersededCancelPublished, case .failure(.cancelled) = outcome {
                publish(.failure(.cancelled))
            }
            return
        }
        if supersededByReload {
            // The stale result of the old source lands; the new source's attempt goes on.
            if case .success(let image) = outcome { publish(.success(origin: image.origin, image: image.fingerprint)) }
            return
        }
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
        if let newSource, loader.sourceChange.reloads {
            return reload(newSource)
        }
        leave()
        attempt += 1
        if !bugs.contains(.isLoadingGuard) { isLoading = false }
        publish(.empty)
    }

    /// AsyncImage's profile: the old attempt is abandoned and the new source's starts at once.
    private func reload(_ newSource: ConformanceSource) {
        if loader.sourceChange.bug == .staleResultAfterReload {
            joined = nil   // the old load is neither left nor disowned
        } else {
            leave()
        }
        attemptSupersededByReload = attempt
        attempt += 1
        isLoading = false
        let key = ToyLoader.key(newSource)
        if let hit = loader.cachedImage(newSource) {
            activeKey = key
            return publish(.success(origin: .memory, image: hit.fingerprint))
        }
        startAttempt(newSource, key: key, keepingPhase: loader.sourceChange.mode == .reloadsKeepingPhase)
    }

    private func leave() {
        guard let joined else { return }
        loader.leave(joined.load, joined.source, observer: ObjectIdentifier(self))
        self.joined = nil
    }
}
