/// One of the two images a phase-model sequence loads, served at a route of its own.
public enum ModelSource: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The first image (the suite's `small` PNG), served at its own route.
    case a
    /// The second image (the suite's `other` PNG), served at its own route.
    case b
    /// `A` or `B`, as the numbered operations name them.
    public var description: String { self == .a ? "A" : "B" }
}

/// How the server answers the requests it holds for a source when the sequence says so.
public enum ServerOutcome: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 200 with the image (`Cache-Control: max-age=86400`).
    case image
    /// 404 (ERR-1).
    case notFound
    /// 503, a transient status (ERR-1; retried when the loader retries, RETRY-1).
    case unavailable
    /// 200 whose connection closes after a few hundred bytes of the body (ERR-3; transient).
    case truncated
    /// 200 with a chunked body (no Content-Length) whose connection closes after a few hundred
    /// bytes, before the last chunk: cut short all the same (ERR-3; transient).
    case truncatedChunked
    /// 200 with no body (ERR-2).
    case empty
    /// 200 with bytes that are no image (ERR-2).
    case notAnImage

    /// `the image`, `404`, …: how a step reads.
    public var description: String {
        switch self {
        case .image: "the image"
        case .notFound: "404"
        case .unavailable: "503"
        case .truncated: "a body cut short"
        case .truncatedChunked: "a chunked body cut short"
        case .empty: "an empty body"
        case .notAnImage: "bytes that are no image"
        }
    }
}

/// One operation of a phase-model sequence. Models are numbered from 1 in the order `appear`
/// makes them, as the steps number them; an operation on a model that does not exist (a
/// shrunk sequence removed its `appear`) is skipped.
public enum PhaseOperation: Sendable, Hashable, CustomStringConvertible {
    /// The loader is made with this fetch strategy (one of `LoaderCapabilities.fetchStrategies`,
    /// for a loader that offers more than one): FETCH-3 asks every strategy for the same phases,
    /// so the model's expectations do not change. Only a sequence's first operation; anywhere
    /// else the model skips it.
    case fetchWith(LoaderContext.FetchStrategy)
    /// A new model (a view appearing) for the source, or none.
    case appear(ModelSource?)
    /// `load()` on the model.
    case load(model: Int)
    /// `cancel()` on the model.
    case cancel(model: Int)
    /// `retry()` on the model.
    case retry(model: Int)
    /// `setSource(_:)` on the model.
    case setSource(model: Int, ModelSource?)
    /// A second observer subscribes to the model late: it must receive the current phase first,
    /// then everything the first observer receives (ORDER-2).
    case observe(model: Int)
    /// The server answers every request it holds for the source with the outcome; later
    /// requests are held again.
    case respond(ModelSource, ServerOutcome)
    /// The app restarts: every model is cancelled and dropped with its loader, and a new loader
    /// opens the same directories (the disk cache survives, the memory cache does not).
    case restart
    /// The injected clock jumps an hour ahead: every back-off ends (`.retries` with
    /// `.injectableClock`).
    case advanceClock
    /// A critical memory-pressure event through the loader's hook (`.memoryPressure`): the memory
    /// cache empties, loads in flight go on (MEM-4).
    case criticalMemoryPressure

    /// `load model 1`, `server answers A with 404`, …
    public var description: String {
        switch self {
        case .fetchWith(let strategy): "the loader fetches with the \(strategy.rawValue) strategy"
        case .appear(let source): "a model appears for \(source.map(\.description) ?? "no source")"
        case .load(let model): "load model \(model)"
        case .cancel(let model): "cancel model \(model)"
        case .retry(let model): "retry model \(model)"
        case .setSource(let model, let source): "model \(model) switches to \(source.map(\.description) ?? "no source")"
        case .observe(let model): "a late observer subscribes to model \(model)"
        case .respond(let source, let outcome): "server answers \(source) with \(outcome)"
        case .restart: "the app restarts (new loader, same directories)"
        case .advanceClock: "the clock advances an hour (back-offs end)"
        case .criticalMemoryPressure: "critical memory pressure"
        }
    }
}
