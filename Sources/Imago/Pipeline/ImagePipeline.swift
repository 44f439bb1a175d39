import Foundation
import Synchronization

/// Loads images. The flow, stated once in `load` below:
///
///     source → memory cache → disk stage → fetch stage → decode stage → memory cache → phase
///
/// Identical requests are coalesced at two places: decodes by request key (source + decode
/// options, `decodes`) and stored fetches by source (`fetches`), so N views of one URL in two
/// sizes make one request and two decodes. Shared work is cancelled only when all its
/// subscribers have left, and it runs at the highest priority among them. Each stage is a type
/// of its own with its own limits: `DiskStage` (what the HTTP cache policy makes of the disk
/// cache), `FetchStage` (the one attempt / back-off / resume / 304 loop, whatever the strategy),
/// `DecodeStage` (the one admission by slots and memory). The pipeline wires them.
public final class ImagePipeline: Sendable {
    /// What the pipeline was made with, fixed for its life (the caches and transport in it may
    /// also be held, and used, by others).
    public let configuration: Configuration
    /// What the pipeline has done so far (fetches, decodes, cache hits).
    public let counters = PipelineCounters()

    /// Where the pipeline and its stages report counts, events, logs and metrics (one value for all of them).
    let diagnostics: PipelineDiagnostics
    let decodes: any CoalescingPool<ImageRequestKey, ImageResponse>
    let fetches: any CoalescingPool<String, Payload>
    let diskStage: DiskStage
    let fetchStage: FetchStage
    let decodeStage: DecodeStage
    let prefetcher = Prefetcher()
    /// Revalidations of `stale-while-revalidate` entries that served their loads.
    let backgroundRevalidations = BackgroundRevalidations()
    /// The pipeline's subscription to its pressure monitor (nil when it does not
    /// respond to pressure); it ends with the pipeline.
    private let pressureObservation = Mutex<MemoryPressureObservation?>(nil)

    /// A pipeline made of `configuration` (default: a memory cache, no disk cache, the platform's
    /// transport). With `memory.respondsToPressure` (default true) it observes the environment's
    /// pressure monitor until it is released.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let diagnostics = PipelineDiagnostics(counters: counters, configuration: configuration.diagnostics)
        self.diagnostics = diagnostics
        decodes = configuration.dependencies.taskPools.makePool(ImageRequestKey.self, ImageResponse.self)
        fetches = configuration.dependencies.taskPools.makePool(String.self, Payload.self)
        diskStage = DiskStage(cache: configuration.dependencies.diskCache, policy: configuration.network.httpCachePolicy,
                              clock: configuration.dependencies.clock, diagnostics: diagnostics)
        fetchStage = FetchStage(configuration: configuration, disk: diskStage, diagnostics: diagnostics)
        decodeStage = DecodeStage(configuration: configuration, diagnostics: diagnostics)
        if configuration.memory.respondsToPressure {
            let observation = configuration.memory.environment.pressureMonitor.addObserver { [weak self] event in self?.respond(to: event) }
            pressureObservation.withLock { $0 = observation }
        }
    }

    deinit {
        backgroundRevalidations.cancelAll()
    }

    typealias Outcome = Result<ImageResponse, ImageLoadingError>

    /// The work for one request key, after a memory miss (`response(for:…)`): the source's
    /// bytes (disk, network, a file, the caller's) decoded, then kept in the memory cache.
    func load(_ request: ImageRequest, shared: SharedWork) async -> Outcome {
        let outcome: Outcome
        switch request.source {
        case .url(let url):
            switch URLSourceKind(url) {
            case .remote(let fetchable): outcome = await loadRemote(fetchable, request, shared)
            case .localFile: outcome = await decodeStage.decode(.file(url), request, shared, origin: .local)
            case .unfetchable(let error): outcome = .failure(.fetch(error))   // no request, no retry
            }
        case .file(let url):
            outcome = await decodeStage.decode(.file(url), request, shared, origin: .local)
        case .data(let data, _):
            outcome = await decodeStage.decode(.data(data), request, shared, origin: .local)
        case .pixels(let pixels, _):
            outcome = DecodeStage.fit(pixels, request.options).map { ImageResponse(image: $0, origin: .local) }
        case .custom(let provider):
            outcome = await loadCustom(provider, request, shared)
        }
        // Stale content stays out of memory: a later load reads the disk, which the
        // revalidation refreshes.
        if case .success(let response) = outcome, !response.isStale { storeInMemory(response, for: request) }
        return outcome
    }

    /// A remote image: a fresh remembered 404 or 410 repeated without a request, a fresh disk
    /// entry decoded (or a stale one the server allows to serve while it is revalidated in the
    /// background), else fetched (revalidating a stale entry)
    /// and decoded; should that fail, a stale entry `stale-if-error` allows serves instead.
    private func loadRemote(_ url: URL, _ request: ImageRequest, _ shared: SharedWork) async -> Outcome {
        let sourceKey = request.source.identity
        var lookup = request.cachePolicy.readsDisk ? diskStage.lookup(sourceKey) : DiskLookup()
        if lookup.fresh != nil || lookup.staleRevalidating != nil || lookup.rememberedFailure != nil {
            fetchStage.admission.arrivals.arrived(sourceKey)   // answered without a fetch
        }
        if let status = lookup.rememberedFailure { return .failure(diskStage.repeatedFailure(sourceKey, status: status)) }
        if let fresh = lookup.fresh {
            lookup.fresh = nil
            switch await decodeStage.decode(.file(fresh.url), request, shared, origin: .disk) {
            case .success(let response):
                diskStage.servedFresh(sourceKey)
                return .success(response.reporting(.fresh))
            case .failure(let error) where error.isCancellation: return .failure(.cancelled)
            case .failure(.decoding(.unreadable)): break   // replaced by another writer meanwhile: a miss
            case .failure:   // a corrupt entry is a miss (CACHE-4)
                diskStage.remove(sourceKey)
                lookup.hadEntry = false
            }
        }
        if let stale = lookup.staleRevalidating {
            lookup.staleRevalidating = nil
            if let served = await serveStale(stale, as: .staleRevalidating, request, shared) {
                if case .success = served { revalidateInBackground(url, request, lookup: lookup) }
                return served
            }
            lookup = DiskLookup(hadEntry: diskStage.entry(forKey: sourceKey) != nil)
        }
        var outcome = await fetchAndDecode(url, request, shared, lookup: lookup)
        if case .failure(.decoding(let error)) = outcome, error != .cancelled, diskStage.entry(forKey: sourceKey) == nil,
           let unconditional = lookup.askingUnconditionally() {
            // The server confirmed (304) bytes that then failed to decode and were removed.
            outcome = await fetchAndDecode(url, request, shared, lookup: unconditional)
        }
        if case .failure(.fetch(let error)) = outcome, HTTPCachePolicy.coversOrigin(failure: error),
           let stale = lookup.staleIfError, let served = await serveStale(stale, as: .staleIfError, request, shared) {
            return served
        }
        return outcome
    }

    /// Fetches and decodes: a stored body is fetched once per source (coalesced with other
    /// loads of the source) and decoded per request; a streamed body is decoded as it arrives,
    /// in this request key's work.
    private func fetchAndDecode(_ url: URL, _ request: ImageRequest, _ shared: SharedWork, lookup: DiskLookup) async -> Outcome {
        let (fetchStage, decodeStage, diskStage) = (self.fetchStage, self.decodeStage, self.diskStage)
        switch request.fetchStrategy ?? configuration.network.fetchStrategy {
        case .stream:
            let body = StreamedBody(request: request, shared: shared, decodeStage: decodeStage, disk: diskStage)
            return await fetchStage.fetch(url, request, lookup: lookup, shared: shared, into: body)
        case let strategy:
            let fetched = await fetches.value(for: request.source.identity, priority: { shared.priority },
                                              onProgress: { shared.report($0) }, onPreview: nil) { fetchShared in
                let body = StoredBody(strategy, url: url, request: request, stage: fetchStage)
                return await fetchStage.fetch(url, request, lookup: lookup, shared: fetchShared, into: body)
            }
            switch fetched {
            case .success(let payload): return await decodeStage.decode(payload, request, shared, disk: diskStage)
            case .failure(let error): return .failure(error)
            }
        }
    }

    /// A `CustomImageSource`'s image: its encoded bytes decoded, or its pixels fitted.
    private func loadCustom(_ provider: CustomImageSource, _ request: ImageRequest, _ shared: SharedWork) async -> Outcome {
        let provided: ProvidedImage
        do {
            provided = try await provider.load()
        } catch {
            return .failure(Task.isCancelled || error is CancellationError ? .cancelled : .provider("\(error)"))
        }
        if Task.isCancelled { return .failure(.cancelled) }
        switch provided {
        case .encoded(let data): return await decodeStage.decode(.data(data), request, shared, origin: .local)
        case .pixels(let pixels): return DecodeStage.fit(pixels, request.options).map { ImageResponse(image: $0, origin: .local) }
        }
    }

    private func storeInMemory(_ response: ImageResponse, for request: ImageRequest) {
        guard request.cachePolicy.writesMemory, let cache = configuration.dependencies.memoryCache else { return }
        let cost = response.pixels.byteCount
        if cache.insert(response.image, forKey: request.key, cost: cost) {
            diagnostics.memoryStored(request.key, cost: cost)
        }
    }
}
