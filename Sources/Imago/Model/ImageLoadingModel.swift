/// The view model of one displayed image: AsyncImage's behaviour with a cache, coalescing and
/// control. Everything is published on the MainActor, in order, and only for the current
/// attempt. What to publish and when to load is decided by a `PhaseMachine` (each call and each
/// report of a load is an event for it); the model carries out what it decides: pipeline calls,
/// the load's tasks, the observers.
@MainActor
public final class ImageLoadingModel {
    /// The pipeline this model loads through; its caches and in-flight work are shared with every
    /// other model on the same pipeline (SHARE-2).
    public let pipeline: ImagePipeline
    /// The phase last published, read on the MainActor; `empty` until the first `load()` (INIT-1).
    public private(set) var phase: ImagePhase = .empty
    /// The current request, nil when there is no source.
    public private(set) var request: ImageRequest?
    /// Default `.fail`.
    public var missingSourceBehavior: MissingSourceBehavior {
        get { machine.missingSourceBehavior }
        set { machine.missingSourceBehavior = newValue }
    }
    /// Default `.cancel`.
    public var disappearBehavior: DisappearBehavior = .cancel

    private var machine: PhaseMachine
    private let transitions: any ImagePhaseTransitions
    /// The running load and the task that publishes its outcome; nil when none is running.
    private var task: (load: ImageTask, watcher: Task<Void, Never>)?
    private let observers = PhaseObservers()

    /// A model for `request` (nil: no source yet), `empty` and idle until `load()` (INIT-1); a
    /// `load()` without a source fails, or with `.stayEmpty` stays `empty` (INIT-2).
    public convenience init(pipeline: ImagePipeline, request: ImageRequest? = nil,
                            missingSourceBehavior: MissingSourceBehavior = .fail) {
        self.init(pipeline: pipeline, request: request, missingSourceBehavior: missingSourceBehavior,
                  transitions: StandardPhaseTransitions())
    }

    /// A model that decides by `transitions` instead of the standard ones: for the conformance
    /// harness, whose planted bugs are wrong decisions.
    @_spi(Testing) public init(pipeline: ImagePipeline, request: ImageRequest? = nil,
                               missingSourceBehavior: MissingSourceBehavior = .fail,
                               transitions: any ImagePhaseTransitions) {
        self.pipeline = pipeline
        self.request = request
        self.machine = PhaseMachine(key: request?.key, missingSourceBehavior: missingSourceBehavior)
        self.transitions = transitions
    }

    /// A model that goes away (its view is gone) leaves its load: the shared work stops unless
    /// another subscriber still wants it.
    isolated deinit {
        task?.load.cancel()
        task?.watcher.cancel()
    }

    /// A model for `source` decoded with `options` (default: full size), at the request's default
    /// priority; nil leaves it without a source.
    public convenience init(pipeline: ImagePipeline, source: ImageSource?, options: DecodeOptions = DecodeOptions()) {
        self.init(pipeline: pipeline, request: source.map { ImageRequest(source: $0, options: options) })
    }

    /// Every phase from now on, starting with the current one (ORDER-2).
    public var phases: AsyncStream<ImagePhase> { observers.stream(startingWith: phase) }

    /// Calls `observer` with the current phase now, then synchronously with every phase as it is
    /// published, for as long as the model lives (a UI binding, or a test that must see each
    /// publication where it happens).
    public func observe(_ observer: @escaping @MainActor (ImagePhase) -> Void) {
        observers.observe(startingWith: phase, observer)
    }

    /// Starts loading the current request. A memory hit publishes `success(.memory)` before
    /// returning and nothing else (CACHE-1); a miss publishes `loading` before returning
    /// (INIT-3). Calling it again for the same key while it loads or after it succeeded does
    /// nothing (SHARE-1).
    public func load() { send(.load) }

    /// Changes what to show. Nothing of the old source is published afterwards; its image
    /// may only appear as `loading(previous:)` of the new one.
    public func setRequest(_ newRequest: ImageRequest?) {
        request = newRequest
        send(.sourceChanged(newRequest?.key))
    }

    /// `setRequest(_:)` with a request for `source` decoded with `options` (default: full size);
    /// nil clears the source (publishing `empty` if there was one).
    public func setSource(_ source: ImageSource?, options: DecodeOptions = DecodeOptions()) {
        setRequest(source.map { ImageRequest(source: $0, options: options) })
    }

    /// Stops the current attempt. Never a failure: the phase goes back to `empty`, or keeps an
    /// image already shown (TRANS-4). A later `load()` starts a new attempt (TRANS-5).
    public func cancel() { send(.cancel) }

    /// Changes the priority of the request, including a load under way: its shared work is
    /// re-ranked at its next stage admission (SHARE-5).
    public func setPriority(_ priority: ImageRequestPriority) {
        request?.priority = priority
        task?.load.priority = priority
    }

    /// A new attempt after a failure: `loading`, then a new request (RETRY-3).
    public func retry() { send(.retry) }

    /// For a view appearing on screen: loads, or restores the priority of a load that kept
    /// running while the view was away.
    public func onAppear() {
        if let running = task?.load, request?.key == machine.activeKey {
            running.priority = request?.priority ?? running.request.priority
        } else {
            load()
        }
    }

    /// For a view leaving the screen: cancels its load or lowers its priority, as
    /// `disappearBehavior` says (SHARE-5).
    public func onDisappear() {
        switch disappearBehavior {
        case .cancel: cancel()
        case .lowerPriority: task?.load.priority = .veryLow
        }
    }

    /// Hands `event` to the machine, then carries out what it decided, in order. The machine is
    /// up to date before the first effect, so an observer that calls back into the model sees
    /// the state after the event.
    private func send(_ event: PhaseMachine.Event) {
        for effect in transitions.handle(event, in: &machine) {
            perform(effect)
        }
    }

    private func perform(_ effect: PhaseMachine.Effect) {
        switch effect {
        case .publish(let next):
            phase = next
            observers.send(next)
        case .lookUpMemoryCache:
            // The answer is an event of its own: the lookup happens only when an attempt
            // starts, and what a hit or a miss publishes is the machine's decision.
            send(.memoryAnswered(request.flatMap { pipeline.cachedResponse(for: $0) }))
        case .startLoad(let attempt):
            // An observer called back by an earlier effect may have ended the attempt already:
            // its load would publish nothing.
            if let request, attempt == machine.attempt { start(request, attempt: attempt) }
        case .cancelLoad:
            task?.load.cancel()
            task?.watcher.cancel()
            task = nil
        case .releaseLoad:
            task = nil
        }
    }

    /// Starts the load of `attempt`; its reports come back to the MainActor as events tagged
    /// with it, so those of an attempt that is over are dropped.
    private func start(_ request: ImageRequest, attempt: Int) {
        let onProgress: @Sendable (FetchProgress) -> Void = { [weak self] progress in
            Task { @MainActor [weak self] in self?.send(.progressed(progress, attempt: attempt)) }
        }
        // Previews only when the pipeline makes them: a listener makes its streaming decodes
        // render them (PREVIEW-1).
        var onPreview: (@Sendable (ImagePreview) -> Void)?
        if pipeline.configuration.previews != nil {
            onPreview = { [weak self] preview in
                Task { @MainActor [weak self] in self?.send(.previewed(preview, attempt: attempt)) }
            }
        }
        let load = pipeline.imageTask(for: request, progress: onProgress, preview: onPreview)
        let watcher = Task { [weak self] in
            do throws(ImageLoadingError) {
                let response = try await load.response
                self?.send(.finished(.success(response), attempt: attempt))
            } catch {
                self?.send(.finished(.failure(error), attempt: attempt))
            }
        }
        task = (load, watcher)
    }
}
