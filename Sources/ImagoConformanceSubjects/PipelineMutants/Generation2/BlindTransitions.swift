@_spi(Testing) import Imago
import Synchronization

/// The generation-2 bugs of the view model's decisions (`MistakenTransitions` holds generation
/// 1's): the standard transitions with one decision changed, given to the model through its
/// `Testing` SPI initializer as `ModelMutants` does for the others. What a mistake remembers
/// across events (a flag, the key last loaded) lives in `memory`, one per model.
struct BlindTransitions: ImagePhaseTransitions {
    let mutant: Mutant
    private let memory = Remembered()
    private let standard = StandardPhaseTransitions()

    /// Nil for a bug that is not one of these.
    init?(_ mutant: Mutant) {
        switch mutant {
        case .initMissingSourceReportedOnce, .transCancelKeepsLoadingOverPrevious, .sourceReturnToLoadedIgnored,
             .shareSourceChangeComparesURL, .errFailedKeyCountsAsLoaded, .orderLateProgressAfterEnd,
             .progressNotMonotonic, .httpRevalidatedShownAsNetwork:
            self.mutant = mutant
        default:
            return nil
        }
    }

    func handle(_ event: PhaseMachine.Event, in machine: inout PhaseMachine) -> [PhaseMachine.Effect] {
        switch (mutant, event) {
        case (.initMissingSourceReportedOnce, .load):
            // A hasStarted flag set by the first load(), never reset: only that one may fail.
            let started = memory.state.withLock { state in
                defer { state.started = true }
                return state.started
            }
            if machine.key == nil && started { return [] }
            return standard.handle(event, in: &machine)

        case (.transCancelKeepsLoadingOverPrevious, .cancel) where machine.loadRunning && machine.showsPreviousImage:
            // loading(previous:) taken for "an image it already shows": the phase is kept.
            let shown = machine.phase
            let effects = standard.handle(event, in: &machine).filter { !$0.publishesEmpty }
            machine.phase = shown
            return effects

        case (.sourceReturnToLoadedIgnored, .load):
            memory.state.withLock { $0.lastLoaded = machine.key ?? $0.lastLoaded }
            return standard.handle(event, in: &machine)
        case (.sourceReturnToLoadedIgnored, .sourceChanged(let newKey?)):
            // Compared with the source it last loaded (a loadedURL property), not the one shown.
            if newKey == memory.state.withLock({ $0.lastLoaded }) { return [] }
            return standard.handle(event, in: &machine)

        case (.shareSourceChangeComparesURL, .sourceChanged(let newKey?)) where newKey.source == machine.key?.source:
            // Same URL: "nothing changed", whatever the size asked for.
            return []

        case (.errFailedKeyCountsAsLoaded, .finished(_, let attempt)) where attempt == machine.attempt:
            memory.state.withLock { $0.lastEnded = machine.key }
            return standard.handle(event, in: &machine)
        case (.errFailedKeyCountsAsLoaded, .load):
            // The key whose load ended counts as loaded, whatever the outcome.
            if machine.key != nil, machine.key == memory.state.withLock({ $0.lastEnded }) { return [] }
            return standard.handle(event, in: &machine)
        case (.errFailedKeyCountsAsLoaded, .retry):
            memory.state.withLock { $0.lastEnded = nil }
            return standard.handle(event, in: &machine)
        case (.errFailedKeyCountsAsLoaded, .sourceChanged), (.errFailedKeyCountsAsLoaded, .cancel):
            memory.state.withLock { $0.lastEnded = nil }
            return standard.handle(event, in: &machine)

        case (.orderLateProgressAfterEnd, .progressed(let progress, let attempt))
            where attempt == machine.attempt && progress.received > machine.lastReceived:
            // No guard on the phase: a late report after the terminal phase publishes loading.
            machine.lastReceived = progress.received
            return [machine.publish(.loading(progress: progress, previous: machine.previousImage, preview: machine.preview))]

        case (.progressNotMonotonic, .progressed):
            // Each report as it comes, with no memory of the highest count.
            machine.lastReceived = -1
            return standard.handle(event, in: &machine)

        case (.httpRevalidatedShownAsNetwork, .finished(.success(let response), _)) where response.diskCache == .revalidated:
            // A request was made, so the response is taken for the network's.
            let shown = ImageResponse(image: response.image, origin: .network, diskCache: response.diskCache)
            return standard.handle(event, in: &machine).map { effect in
                guard case .publish(.success) = effect else { return effect }
                return machine.publish(.success(shown))
            }

        default:
            return standard.handle(event, in: &machine)
        }
    }
}

/// What a `BlindTransitions` mistake remembers across events, for one model.
final class Remembered: Sendable {
    struct State {
        /// `initMissingSourceReportedOnce`: whether load() has been called once.
        var started = false
        /// `sourceReturnToLoadedIgnored`: the key of the last load().
        var lastLoaded: ImageRequestKey?
        /// `errFailedKeyCountsAsLoaded`: the key whose load last ended.
        var lastEnded: ImageRequestKey?
    }

    let state = Mutex(State())
}

private extension PhaseMachine {
    /// Whether the phase is `loading` over the previous source's image.
    var showsPreviousImage: Bool {
        if case .loading(_, .some, _) = phase { return true }
        return false
    }
}

private extension PhaseMachine.Effect {
    var publishesEmpty: Bool {
        if case .publish(.empty) = self { return true }
        return false
    }
}
