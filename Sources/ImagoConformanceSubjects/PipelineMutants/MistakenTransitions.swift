@_spi(Testing) import Imago
import Synchronization

/// A model that decides wrongly in one way: the standard transitions, with the events it is
/// given or the effects they decide changed as `mutant` says. Every change keeps the machine's
/// `phase` equal to what the model was told to publish (`PhaseMachine.publish`), so the
/// mistake is the only difference.
struct MistakenTransitions: ImagePhaseTransitions {
    let mutant: Mutant
    /// Whether the pipeline downloads bodies to file (`fetchCachedDownloadIsDiskHit` judges
    /// where a download's bytes are).
    let downloadsToFile: Bool
    /// `initLoadingDeferred`'s task back into the model.
    let deferred = DeferredLoading()
    private let standard = StandardPhaseTransitions()

    /// Nil for a bug that is not a decision of the model.
    init?(_ mutant: Mutant, downloadsToFile: Bool = false) {
        switch mutant {
        case .initSilentWithoutSource, .initLoadingDeferred, .transDuplicateSuccess,
             .transHitAfterFailureSkipsLoading, .transCancelOnlyResetsPhase, .transCancelIsFailure,
             .transCancelKeepsTask, .cacheHitPublishesLoading, .cacheHitKeepsFirstOrigin, .sourceChangeKeepsOldLoad,
             .sourceChangeKeepsOldSuccess, .shareReloadsSameKey, .retryNeedsActiveAttempt,
             .orderProgressAfterSuccess, .fetchCachedDownloadIsDiskHit:
            self.mutant = mutant
            self.downloadsToFile = downloadsToFile
        default:
            return nil
        }
    }

    func handle(_ event: PhaseMachine.Event, in machine: inout PhaseMachine) -> [PhaseMachine.Effect] {
        switch (mutant, event) {
        case (.initSilentWithoutSource, .load) where machine.key == nil:
            // load() without a source returns quietly instead of publishing missingSource.
            return []

        case (.initLoadingDeferred, .memoryAnswered(.none)):
            // A miss publishes loading from a task it schedules, after load() returned (and
            // only if the attempt is still the current one and its load still runs then).
            let shown = machine.phase
            let effects = standard.handle(event, in: &machine)
            machine.phase = shown
            deferred.schedule(attempt: machine.attempt)
            return effects.filter { !$0.publishes }
        case (.initLoadingDeferred, .load) where deferred.delivering != nil:
            guard deferred.delivering == machine.attempt, machine.loadRunning else { return [] }
            return [machine.publish(machine.startedLoading)]

        case (.transDuplicateSuccess, .finished(.success, _)):
            // A success is delivered twice.
            return standard.handle(event, in: &machine).flatMap { $0.isSuccess ? [$0, $0] : [$0] }

        case (.transHitAfterFailureSkipsLoading, .memoryAnswered(.some)):
            // A retry answered by the memory cache goes from failure straight to success.
            return standard.handle(event, in: &machine).filter { !$0.isLoading }

        case (.transCancelOnlyResetsPhase, .cancel) where machine.loadRunning:
            // cancel() resets the phase but leaves the running load, whose reports are still
            // of the current attempt.
            machine.activeKey = nil
            return machine.phase.isSuccess ? [] : [machine.publish(.empty)]

        case (.transCancelIsFailure, .cancel):
            // cancel() publishes failure(cancelled) instead of going back to empty.
            return standard.handle(event, in: &machine).map {
                $0.isEmpty ? machine.publish(.failure(.cancelled)) : $0
            }

        case (.transCancelKeepsTask, .cancel) where machine.loadRunning:
            // The load is cancelled but stays the current one, so load() thinks it runs.
            let activeKey = machine.activeKey
            let effects = standard.handle(event, in: &machine)
            (machine.loadRunning, machine.activeKey) = (true, activeKey)
            return effects

        case (.cacheHitPublishesLoading, .memoryAnswered(.some)):
            // A memory hit publishes loading before its success.
            // Published first, the loading phase also keeps the standard one (after a failure)
            // from following it.
            let loading = machine.publish(machine.startedLoading)
            return [loading] + standard.handle(event, in: &machine)

        case (.cacheHitKeepsFirstOrigin, .memoryAnswered(.some)):
            // A memory hit is shown as the response the image was first loaded with: its origin
            // is where it first came from, the network.
            return standard.handle(event, in: &machine).map { effect in
                guard case .publish(.success(let hit)) = effect else { return effect }
                return machine.publish(.success(ImageResponse(image: hit.image, origin: .network, diskCache: hit.diskCache)))
            }

        case (.fetchCachedDownloadIsDiskHit, .finished(.success(let response), _))
            where downloadsToFile && response.origin == .network
                && (response.diskCache == .stored || response.diskCache == .replaced):
            // The origin is taken from where the bytes are now: a download to file renamed into
            // the disk cache is shown as a disk hit.
            let onDisk = ImageResponse(image: response.image, origin: .disk, diskCache: response.diskCache)
            return standard.handle(event, in: &machine).map { effect in
                guard case .publish(.success) = effect else { return effect }
                return machine.publish(.success(onDisk))
            }

        case (.sourceChangeKeepsOldLoad, .sourceChanged):
            // A source change forgets the old load without cancelling it...
            return standard.handle(event, in: &machine).map { $0.cancels ? .releaseLoad : $0 }
        case (.sourceChangeKeepsOldLoad, .progressed(let progress, _)):
            // ... and results are not tagged with their attempt: any is taken as the current one.
            return standard.handle(.progressed(progress, attempt: machine.attempt), in: &machine)
        case (.sourceChangeKeepsOldLoad, .finished(let outcome, _)):
            return standard.handle(.finished(outcome, attempt: machine.attempt), in: &machine)

        case (.sourceChangeKeepsOldSuccess, .sourceChanged) where machine.phase.isSuccess:
            // The old image's success stays on screen until the new one loads.
            let shown = machine.phase
            let effects = standard.handle(event, in: &machine)
            machine.phase = shown
            return effects.filter { !$0.publishes }

        case (.shareReloadsSameKey, .load):
            // A second load() of a key that loaded or is loading starts another attempt.
            machine.activeKey = nil
            return standard.handle(event, in: &machine)

        case (.retryNeedsActiveAttempt, .retry) where machine.activeKey == nil:
            // retry() only retries an attempt still marked active, which the failure cleared.
            return []

        case (.orderProgressAfterSuccess, .finished(.success, _)):
            // A last 100% progress report is published after the success.
            let received = machine.lastReceived
            var effects = standard.handle(event, in: &machine)
            if received > 0, effects.contains(where: \.isSuccess) {
                let complete = FetchProgress(received: received, expected: received)
                effects.append(machine.publish(.loading(progress: complete, previous: nil)))
            }
            return effects

        default:
            return standard.handle(event, in: &machine)
        }
    }
}

/// `initLoadingDeferred`'s late `loading`: the task a miss schedules comes back into the model
/// through its public `load()`, marked as the delivery for its attempt, and the mistaken
/// transitions answer it with that attempt's loading phase (nothing if the attempt is over or
/// its load ended). The model is held weakly: it owns the transitions that own this.
final class DeferredLoading: Sendable {
    private struct State {
        weak var model: ImageLoadingModel?
        var delivering: Int?
    }

    private let state = Mutex(State())

    /// The attempt whose loading the `load()` under way delivers; nil for the adapter's calls.
    var delivering: Int? { state.withLock { $0.delivering } }

    func attach(_ model: ImageLoadingModel) { state.withLock { $0.model = model } }

    func schedule(attempt: Int) {
        Task { @MainActor in self.deliver(attempt) }
    }

    @MainActor private func deliver(_ attempt: Int) {
        guard let model = state.withLock({ $0.model }) else { return }
        state.withLock { $0.delivering = attempt }
        model.load()
        state.withLock { $0.delivering = nil }
    }
}

private extension PhaseMachine.Effect {
    var publishes: Bool {
        if case .publish = self { return true }
        return false
    }

    var isLoading: Bool {
        if case .publish(let phase) = self { return phase.isLoading }
        return false
    }

    var isSuccess: Bool {
        if case .publish(.success) = self { return true }
        return false
    }

    var isEmpty: Bool {
        if case .publish(.empty) = self { return true }
        return false
    }

    var cancels: Bool {
        if case .cancelLoad = self { return true }
        return false
    }
}

private extension ImagePhase {
    var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }

    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
