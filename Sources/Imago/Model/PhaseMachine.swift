/// The decisions of `ImageLoadingModel`, apart from their effects: a value holding what the
/// model knows (the phase it published, the attempt, the key it shows) that takes what happens
/// to the model (`Event`) and says what the model must do about it (`Effect`), in order. The model
/// carries the effects out: pipeline calls, tasks, observers. Kept a plain value so every rule of
/// Docs/phase-rules.md that is about the model's decisions can be checked without a pipeline, a
/// server or a clock, and so the conformance harness can plant a wrong decision
/// (`ImagePhaseTransitions`) without a line of it in the shipped model.
///
/// Attempts: each `load` that starts work, source change, cancel and retry starts a new attempt
/// number, and a report that arrives for an older one is dropped (TRANS-3, SOURCE-1).
@_spi(Testing) public struct PhaseMachine: Sendable {
    /// What happens to the model.
    public enum Event: Sendable {
        /// `load()`: starts an attempt for `key` unless it is already loading or loaded.
        case load
        /// The model's answer to `Effect.lookUpMemoryCache`: the memory cache's response, or nil
        /// for a miss.
        case memoryAnswered(ImageResponse?)
        /// `setRequest(_:)` with a request for `key` (nil: no source).
        case sourceChanged(ImageRequestKey?)
        /// `cancel()`, explicit or on disappear.
        case cancel
        /// `retry()`.
        case retry
        /// The load started for `attempt` reported progress (after a hop to the MainActor, so
        /// reports may be late or out of order).
        case progressed(FetchProgress, attempt: Int)
        /// The load started for `attempt` made a preview (PREVIEW-1).
        case previewed(ImagePreview, attempt: Int)
        /// The load started for `attempt` ended.
        case finished(Result<ImageResponse, ImageLoadingError>, attempt: Int)
    }

    /// What the model must do, in the order given.
    public enum Effect: Sendable {
        /// Make `phase` the model's phase and send it to every observer.
        case publish(ImagePhase)
        /// Ask the memory cache for the current request, synchronously, and answer with
        /// `Event.memoryAnswered` (asked only when an attempt starts: a lookup refreshes the
        /// entry and counts a hit).
        case lookUpMemoryCache
        /// Start loading the current request for `attempt`; its reports come back tagged with it.
        case startLoad(attempt: Int)
        /// Cancel the running load: its shared work stops unless another subscriber wants it.
        case cancelLoad
        /// Let go of the running load without cancelling it: it has ended.
        case releaseLoad
    }

    /// The last phase decided (what the model has published once the effects are carried out).
    public var phase: ImagePhase = .empty
    /// The key of what to show; nil when there is no source.
    public var key: ImageRequestKey?
    /// What `load` does without a source (INIT-2).
    public var missingSourceBehavior: MissingSourceBehavior
    /// The current attempt's number; reports tagged with another one are dropped.
    public var attempt = 0
    /// The key of the attempt that is running or has succeeded: `load` is idempotent for it
    /// (SHARE-1).
    public var activeKey: ImageRequestKey?
    /// Whether a load started by this machine is running (between `startLoad` and its end, a
    /// cancel or a source change).
    public var loadRunning = false
    /// The image of the source shown before a source change, for `loading(previous:)` of the next
    /// one (SOURCE-2); dropped at the next success.
    public var previousImage: PixelBuffer?
    /// The most bytes the running attempt has reported: progress never goes down (PROGRESS-1).
    public var lastReceived = -1
    /// The latest preview of the running attempt (PREVIEW-1), shown with its later progress.
    public var preview: ImagePreview?

    public init(key: ImageRequestKey?, missingSourceBehavior: MissingSourceBehavior = .fail) {
        self.key = key
        self.missingSourceBehavior = missingSourceBehavior
    }

    /// The standard decisions: the state after `event`, and what the model must do.
    public mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .load: load()
        case .memoryAnswered(let hit): memoryAnswered(hit)
        case .sourceChanged(let newKey): sourceChanged(to: newKey)
        case .cancel: cancel()
        case .retry: retry()
        case .progressed(let progress, let attempt): progressed(progress, attempt: attempt)
        case .previewed(let preview, let attempt): previewed(preview, attempt: attempt)
        case .finished(let outcome, let attempt): finished(outcome, attempt: attempt)
        }
    }

    /// Makes `next` the phase and says to publish it. Every phase goes through here, so `phase`
    /// is always the last one the model was told to publish.
    public mutating func publish(_ next: ImagePhase) -> Effect {
        phase = next
        return .publish(next)
    }

    /// `loading` without progress, over the previous source's image: the first phase of an
    /// attempt (INIT-3, RETRY-3).
    public var startedLoading: ImagePhase { .loading(progress: nil, previous: previousImage) }

    /// A memory hit publishes `success(.memory)` and nothing else (CACHE-1); a miss publishes
    /// `loading` before `load()` returns (INIT-3). Again for the same key while it loads or after
    /// it succeeded, nothing (SHARE-1).
    private mutating func load() -> [Effect] {
        guard let key else {
            return missingSourceBehavior == .fail ? [publish(.failure(.missingSource))] : []
        }
        if activeKey == key, loadRunning || phase.isSuccess { return [] }
        attempt += 1
        activeKey = key
        return [.lookUpMemoryCache]
    }

    private mutating func memoryAnswered(_ hit: ImageResponse?) -> [Effect] {
        if let hit {
            // failure → success is not an edge (TRANS-2): a new attempt after a failure goes
            // through loading even when the memory cache answers it.
            var effects: [Effect] = []
            if case .failure = phase { effects.append(publish(startedLoading)) }
            effects.append(publish(.success(hit)))
            return effects
        }
        lastReceived = -1
        preview = nil
        loadRunning = true
        return [publish(startedLoading), .startLoad(attempt: attempt)]
    }

    /// Nothing of the old source is published afterwards; its image may only appear as
    /// `loading(previous:)` of the new one (SOURCE-1, SOURCE-2).
    private mutating func sourceChanged(to newKey: ImageRequestKey?) -> [Effect] {
        guard newKey != key else { return [] }
        if case .success(let response) = phase { previousImage = response.pixels }
        var effects = stopAttempt()
        key = newKey
        effects.append(publish(.empty))
        return effects
    }

    /// Never a failure: back to `empty`, or keep an image already shown (TRANS-4). A later
    /// `load` starts a new attempt (TRANS-5).
    private mutating func cancel() -> [Effect] {
        guard loadRunning else { return [] }
        var effects = stopAttempt()
        if !phase.isSuccess { effects.append(publish(.empty)) }
        return effects
    }

    /// A new attempt after a failure: `loading`, then a new request (RETRY-3). A failure has
    /// already cleared the active key; clearing it here keeps `retry` a new attempt whatever
    /// led to the failure.
    private mutating func retry() -> [Effect] {
        guard case .failure = phase else { return [] }
        activeKey = nil
        return load()
    }

    /// Completed bytes never go down (PROGRESS-1) and nothing follows the terminal phase
    /// (ORDER-1).
    private mutating func progressed(_ progress: FetchProgress, attempt: Int) -> [Effect] {
        guard attempt == self.attempt, case .loading = phase, progress.received > lastReceived else { return [] }
        lastReceived = progress.received
        return [publish(.loading(progress: progress, previous: previousImage, preview: preview))]
    }

    /// Inside `loading` only, in order of increasing detail: older ones are dropped.
    private mutating func previewed(_ next: ImagePreview, attempt: Int) -> [Effect] {
        guard attempt == self.attempt, case .loading(let progress, _, _) = phase,
              next.detail > (preview?.detail ?? 0) else { return [] }
        preview = next
        return [publish(.loading(progress: progress, previous: previousImage, preview: next))]
    }

    private mutating func finished(_ outcome: Result<ImageResponse, ImageLoadingError>, attempt: Int) -> [Effect] {
        guard attempt == self.attempt else { return [] }
        loadRunning = false
        var effects: [Effect] = [.releaseLoad]
        switch outcome {
        case .success(let response):
            previousImage = nil
            effects.append(publish(.success(response)))
        case .failure(let error) where error.isCancellation:
            activeKey = nil   // cancelled from outside (task cancellation): nothing to show
            if !phase.isSuccess { effects.append(publish(.empty)) }
        case .failure(let error):
            activeKey = nil
            effects.append(publish(.failure(error)))
        }
        return effects
    }

    /// Ends the current attempt: a new number, so nothing of it is published any more.
    private mutating func stopAttempt() -> [Effect] {
        attempt += 1
        activeKey = nil
        guard loadRunning else { return [] }
        loadRunning = false
        return [.cancelLoad]
    }
}

extension ImagePhase {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
