/// The view model of one displayed image: AsyncImage's behaviour with a cache, coalescing and
/// control. Everything is published on the MainActor, in order, and only for the current
/// attempt: each `load`, source change, cancel or retry starts a new attempt number, and a
/// result that arrives for an older one is dropped (TRANS-3, SOURCE-1).
@MainActor
public final class ImageLoadingModel {
    public let pipeline: ImagePipeline
    public private(set) var phase: ImagePhase = .empty
    /// The current request, nil when there is no source.
    public private(set) var request: ImageRequest?
    /// Default `.fail`.
    public var missingSourceBehavior: MissingSourceBehavior
    /// Default `.cancel`.
    public var disappearBehavior: DisappearBehavior = .cancel

    private var attempt = 0
    /// The running load and the task that publishes its outcome; nil when none is running.
    private var task: (load: ImageTask, watcher: Task<Void, Never>)?
    /// The key of the attempt that is running or has succeeded (load() is idempotent for it).
    private var activeKey: ImageRequestKey?
    private var previousImage: PixelBuffer?
    private var lastReceived = -1
    /// The latest preview of the running attempt (PREVIEW-1), shown with its later progress.
    private var preview: ImagePreview?
    private let observers = PhaseObservers()

    public init(pipeline: ImagePipeline, request: ImageRequest? = nil,
                missingSourceBehavior: MissingSourceBehavior = .fail) {
        self.pipeline = pipeline
        self.request = request
        self.missingSourceBehavior = missingSourceBehavior
        #if IMAGO_MUTANTS
        if Mutation.on(.initEagerLoad), let request { Task { [pipeline] in _ = try? await pipeline.response(for: request) } }
        #endif
    }

    /// A model that goes away (its view is gone) leaves its load: the shared work stops unless
    /// another subscriber still wants it.
    isolated deinit {
        task?.load.cancel()
        task?.watcher.cancel()
    }

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
    public func load() {
        guard let request else {
            #if IMAGO_MUTANTS
            if Mutation.on(.initSilentWithoutSource) { return }
            #endif
            if missingSourceBehavior == .fail { publish(.failure(.missingSource)) }
            return
        }
        #if IMAGO_MUTANTS
        let reloads = Mutation.on(.shareReloadsSameKey)
        #else
        let reloads = false
        #endif
        if activeKey == request.key, task != nil || phase.isSuccess, !reloads { return }
        attempt += 1
        activeKey = request.key
        if let hit = pipeline.cachedResponse(for: request) {
            #if IMAGO_MUTANTS
            if Mutation.on(.cacheHitPublishesLoading) { publish(.loading(progress: nil, previous: previousImage)) }
            if case .failure = phase, !Mutation.on(.transHitAfterFailureSkipsLoading) {
                publish(.loading(progress: nil, previous: previousImage))
            }
            #else
            if case .failure = phase { publish(.loading(progress: nil, previous: previousImage)) }
            #endif
            publish(.success(hit))
            return
        }
        start(request, attempt: attempt)
    }

    /// Changes what to show. Nothing of the old source is published afterwards; its image
    /// may only appear as `loading(previous:)` of the new one.
    public func setRequest(_ newRequest: ImageRequest?) {
        guard newRequest?.key != request?.key else {
            request = newRequest
            return
        }
        if case .success(let response) = phase { previousImage = response.pixels }
        #if IMAGO_MUTANTS
        if Mutation.on(.sourceChangeKeepsOldLoad) {
            (task, activeKey) = (nil, nil)   // forgotten, not cancelled: it still publishes
        } else {
            stopAttempt()
        }
        request = newRequest
        if !(Mutation.on(.sourceChangeKeepsOldSuccess) && phase.isSuccess) { publish(.empty) }
        #else
        stopAttempt()
        request = newRequest
        publish(.empty)
        #endif
    }

    public func setSource(_ source: ImageSource?, options: DecodeOptions = DecodeOptions()) {
        setRequest(source.map { ImageRequest(source: $0, options: options) })
    }

    /// Stops the current attempt. Never a failure: the phase goes back to `empty`, or keeps an
    /// image already shown (TRANS-4). A later `load()` starts a new attempt (TRANS-5).
    public func cancel() {
        guard task != nil else { return }
        #if IMAGO_MUTANTS
        if Mutation.on(.transCancelOnlyResetsPhase) {
            activeKey = nil
            if !phase.isSuccess { publish(.empty) }
            return
        }
        let kept = Mutation.on(.transCancelKeepsTask) ? (task, activeKey) : (nil, nil)
        stopAttempt()
        if kept.0 != nil { (task, activeKey) = kept }
        if !phase.isSuccess { publish(Mutation.on(.transCancelIsFailure) ? .failure(.cancelled) : .empty) }
        #else
        stopAttempt()
        if !phase.isSuccess { publish(.empty) }
        #endif
    }

    /// Changes the priority of the request, including a load under way: its shared work is
    /// re-ranked at its next stage admission (SHARE-5).
    public func setPriority(_ priority: ImageRequestPriority) {
        request?.priority = priority
        task?.load.priority = priority
    }

    /// A new attempt after a failure: `loading`, then a new request (RETRY-3).
    public func retry() {
        guard case .failure = phase else { return }
        #if IMAGO_MUTANTS
        if Mutation.on(.retryNeedsActiveAttempt), activeKey == nil { return }
        #endif
        activeKey = nil
        load()
    }

    /// For a view appearing on screen: loads, or restores the priority of a load that kept
    /// running while the view was away.
    public func onAppear() {
        if let running = task?.load, request?.key == activeKey {
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

    private func start(_ request: ImageRequest, attempt: Int) {
        lastReceived = -1
        preview = nil
        #if IMAGO_MUTANTS
        if Mutation.on(.initLoadingDeferred) {
            let previous = previousImage
            Task { @MainActor [weak self] in
                if self?.attempt == attempt, self?.task != nil { self?.publish(.loading(progress: nil, previous: previous)) }
            }
        } else {
            publish(.loading(progress: nil, previous: previousImage))
        }
        #else
        publish(.loading(progress: nil, previous: previousImage))
        #endif
        let pipeline = self.pipeline
        let onProgress: @Sendable (FetchProgress) -> Void = { [weak self] progress in
            Task { @MainActor [weak self] in self?.progressed(progress, attempt: attempt) }
        }
        // Previews only when the pipeline makes them: a listener makes its streaming decodes
        // render them (PREVIEW-1).
        var onPreview: (@Sendable (ImagePreview) -> Void)?
        if pipeline.configuration.previews != nil {
            onPreview = { [weak self] preview in
                Task { @MainActor [weak self] in self?.previewed(preview, attempt: attempt) }
            }
        }
        let load = pipeline.imageTask(for: request, progress: onProgress, preview: onPreview)
        let watcher = Task { [weak self] in
            do throws(ImageLoadingError) {
                let response = try await load.response
                self?.finished(.success(response), attempt: attempt)
            } catch {
                self?.finished(.failure(error), attempt: attempt)
            }
        }
        task = (load, watcher)
    }

    private func progressed(_ progress: FetchProgress, attempt: Int) {
        // Hops may arrive out of order or late: completed bytes never go down (PROGRESS-1) and
        // nothing follows the terminal phase (ORDER-1).
        #if IMAGO_MUTANTS
        let current = attempt == self.attempt || Mutation.on(.sourceChangeKeepsOldLoad)
        #else
        let current = attempt == self.attempt
        #endif
        guard current, case .loading = phase, progress.received > lastReceived else { return }
        lastReceived = progress.received
        publish(.loading(progress: progress, previous: previousImage, preview: preview))
    }

    /// A preview of the current attempt, inside `loading` only and in order of increasing
    /// detail (hops may arrive late or out of order: older ones are dropped).
    private func previewed(_ next: ImagePreview, attempt: Int) {
        guard attempt == self.attempt, case .loading(let progress, _, _) = phase,
              next.detail > (preview?.detail ?? 0) else { return }
        preview = next
        publish(.loading(progress: progress, previous: previousImage, preview: next))
    }

    private func finished(_ outcome: Result<ImageResponse, ImageLoadingError>, attempt: Int) {
        #if IMAGO_MUTANTS
        guard attempt == self.attempt || Mutation.on(.sourceChangeKeepsOldLoad) else { return }
        #else
        guard attempt == self.attempt else { return }
        #endif
        task = nil
        switch outcome {
        case .success(let response):
            previousImage = nil
            publish(.success(response))
            #if IMAGO_MUTANTS
            if Mutation.on(.transDuplicateSuccess) { publish(.success(response)) }
            if Mutation.on(.orderProgressAfterSuccess), lastReceived > 0 {
                publish(.loading(progress: FetchProgress(received: lastReceived, expected: lastReceived), previous: nil))
            }
            #endif
        case .failure(let error) where error.isCancellation:
            activeKey = nil   // cancelled from outside (task cancellation): nothing to show
            if !phase.isSuccess { publish(.empty) }
        case .failure(let error):
            activeKey = nil
            publish(.failure(error))
        }
    }

    private func stopAttempt() {
        attempt += 1
        task?.load.cancel()
        task?.watcher.cancel()
        task = nil
        activeKey = nil
    }

    private func publish(_ next: ImagePhase) {
        phase = next
        observers.send(next)
    }
}

extension ImagePhase {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
