import Foundation
import ImagoConformance
import Synchronization

/// The end of one attempt: its outcome and the instant the model published it.
struct AttemptEnd: Sendable {
    let outcome: ObservedOutcome
    let at: ContinuousClock.Instant
}

/// Holds the first terminal phase a model publishes (or a timeout) for one waiter. The instant
/// is taken in the model's callback, not when the waiter resumes, so the main actor's queue does
/// not add to the time measured.
final class OutcomeLatch: Sendable {
    private struct State {
        var result: Result<AttemptEnd, LoaderBenchError>?
        var continuation: CheckedContinuation<AttemptEnd, any Error>?
        var delivered = false
    }
    private let state = Mutex(State())

    /// Keeps the first result; later ones (a second terminal phase, a late timeout) are ignored.
    func deliver(_ result: Result<AttemptEnd, LoaderBenchError>) {
        let waiting: CheckedContinuation<AttemptEnd, any Error>? = state.withLock { state in
            guard !state.delivered else { return nil }
            state.delivered = true
            guard let continuation = state.continuation else {
                state.result = result
                return nil
            }
            state.continuation = nil
            return continuation
        }
        waiting?.resume(with: result.mapError { $0 as any Error })
    }

    /// The first result, whenever it came.
    func wait() async throws -> AttemptEnd {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<AttemptEnd, LoaderBenchError>? = state.withLock { state in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
    }
}

extension ModelUnderTest {
    /// Feeds this model's terminal phases into `latch`: through `observeOutcome(_:)` when the
    /// model offers it (no fingerprint computed), else through `observe(_:)`.
    func report(to latch: OutcomeLatch, subject: String, path: String) {
        let deliver: @Sendable (ObservedOutcome) -> Void = { outcome in
            let end = AttemptEnd(outcome: outcome, at: .now)
            switch outcome {
            case .success: latch.deliver(.success(end))
            case .failure(let failure): latch.deliver(.failure(.loadFailed(subject: subject, path: path, failure: failure)))
            }
        }
        if let light = self as? any OutcomeObserving {
            light.observeOutcome(deliver)
            return
        }
        observe { phase in
            switch phase {
            case .success(let origin, let image): deliver(.success(origin: origin, width: image.width, height: image.height))
            case .failure(let failure): deliver(.failure(failure))
            case .empty, .loading: break
            }
        }
    }

    /// Whether `observeOutcome(_:)` times this model (true) or `observe(_:)` with the adapter's
    /// conversion work included (false).
    var timesPixelsReady: Bool { self is any OutcomeObserving }
}
