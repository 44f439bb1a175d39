import Foundation

extension ImagePipeline {
    typealias Outcome = Result<ImageResponse, ImageLoadingError>

    /// The decode-stage work for one request key.
    func load(_ request: ImageRequest, shared: SharedWork) async -> Outcome {
        let outcome: Outcome
        switch request.source {
        case .url(let url):
            switch URLSourceKind(url) {
            case .remote(let fetchable): outcome = await loadRemote(fetchable, request, shared)
            case .localFile: outcome = await decode(.file(url), request, shared, origin: .local)
            case .unfetchable(let error): outcome = .failure(.fetch(error))   // no request, no retry
            }
        case .file(let url):
            outcome = await decode(.file(url), request, shared, origin: .local)
        case .data(let data, _):
            outcome = await decode(.data(data), request, shared, origin: .local)
        case .pixels(let pixels, _):
            outcome = Self.fit(pixels, request.options).map { ImageResponse(image: $0, origin: .local) }
        case .custom(let provider):
            outcome = await loadCustom(provider, request, shared)
        }
        if case .success(let response) = outcome { store(response, for: request) }
        return outcome
    }

    private func loadRemote(_ url: URL, _ request: ImageRequest, _ shared: SharedWork) async -> Outcome {
        let sourceKey = request.source.identity
        var lookup = DiskLookup()
        #if IMAGO_MUTANTS
        if let failed = failedURLs.withLock({ $0[url] }), Mutation.on(.errRemembersFailedURLs) { return .failure(failed) }
        let readsDisk = request.cachePolicy.readsDisk && !Mutation.on(.cacheSkipsDiskLookup)
        #else
        let readsDisk = request.cachePolicy.readsDisk
        #endif
        if readsDisk, let disk = configuration.diskCache {
            let entry = disk.entry(forKey: sourceKey)
            lookup.hadEntry = entry != nil
            if let entry {
                switch configuration.httpCachePolicy.use(entry.metadata, storedAt: entry.storedAt,
                                                         requestHeaders: HTTPCachePolicy.sentRequestHeaders,
                                                         now: disk.configuration.now()) {
                case .fresh:
                    switch await decode(.file(entry.url), request, shared, origin: .disk) {
                    case .success(let response):
                        counters.record { $0.diskHits += 1; $0.diskFreshHits += 1 }
                        emit(.diskFresh, sourceKey)
                        return .success(response.reporting(.fresh))
                    case .failure(let error) where error.isCancellation: return .failure(.cancelled)
                    case .failure(.decoding(.unreadable)): break   // replaced by another writer meanwhile: a miss
                    #if IMAGO_MUTANTS
                    case .failure(let error) where Mutation.on(.cacheCorruptEntryFails): return .failure(error)
                    #endif
                    case .failure:   // a corrupt entry is a miss (CACHE-4)
                        try? disk.removeEntry(forKey: sourceKey)
                        lookup.hadEntry = false
                    }
                case .revalidate(let conditional):
                    lookup.revalidating = entry.metadata   // a 304 serves these bytes
                    lookup.conditionalHeaders = conditional
                case .refetch:
                    break
                }
            }
        }
        let outcome = await fetchAndDecode(url, request, shared, lookup: lookup)
        if case .failure(.decoding(let error)) = outcome, error != .cancelled, lookup.revalidating != nil,
           configuration.diskCache?.entry(forKey: sourceKey) == nil {
            // The server confirmed (304) bytes that then failed to decode and were removed: a
            // corrupt entry is a miss (CACHE-4), so ask once more, unconditionally.
            return await fetchAndDecode(url, request, shared, lookup: DiskLookup(hadEntry: false))
        }
        #if IMAGO_MUTANTS
        if case .failure(let error) = outcome, !error.isCancellation { failedURLs.withLock { $0[url] = error } }
        #endif
        return outcome
    }

    /// Fetches (coalesced with other loads of the source) and decodes what came back; with the
    /// streaming strategy, both at once (`streamAndDecode`).
    private func fetchAndDecode(_ url: URL, _ request: ImageRequest, _ shared: SharedWork, lookup: DiskLookup) async -> Outcome {
        if (request.fetchStrategy ?? configuration.fetchStrategy) == .streaming {
            return await streamAndDecode(url, request, shared, lookup: lookup)
        }
        let sourceKey = request.source.identity
        let fetched = await fetches.value(for: sourceKey, priority: { shared.priority }, onProgress: { shared.report($0) }) { fetchShared in
            await self.fetch(url, request, lookup: lookup, shared: fetchShared)
        }
        switch fetched {
        case .success(let payload): return await decodeFetched(payload, request, shared)
        case .failure(let error): return .failure(error)
        }
    }

    /// Decodes a fetched body; bytes the disk cache took that do not decode are removed.
    func decodeFetched(_ payload: Payload, _ request: ImageRequest, _ shared: SharedWork) async -> Outcome {
        var outcome = await decode(payload.storage, request, shared, origin: payload.origin)
        if case .failure(.decoding(.unreadable)) = outcome, let key = payload.diskKey,
           let entry = configuration.diskCache?.entry(forKey: key) {
            // Another writer of this key (thread or process) replaced the entry between our store
            // and our read (last writer wins): its copy is as good as ours.
            outcome = await decode(.file(entry.url), request, shared, origin: payload.origin)
        }
        switch outcome {
        case .failure(.decoding(.unreadable)), .success: break
        case .failure(let error) where error.isCancellation: break
        case .failure:
            if let key = payload.diskKey {
                try? configuration.diskCache?.removeEntry(forKey: key)   // never keep bytes that do not decode
            }
        }
        return outcome.map { $0.reporting(payload.diskCache) }
    }

    private func loadCustom(_ provider: CustomImageSource, _ request: ImageRequest, _ shared: SharedWork) async -> Outcome {
        let provided: ProvidedImage
        do {
            provided = try await provider.load()
        } catch {
            return .failure(Task.isCancelled || error is CancellationError ? .cancelled : .provider("\(error)"))
        }
        if Task.isCancelled { return .failure(.cancelled) }
        switch provided {
        case .encoded(let data): return await decode(.data(data), request, shared, origin: .local)
        case .pixels(let pixels): return Self.fit(pixels, request.options).map { ImageResponse(image: $0, origin: .local) }
        }
    }

    private func store(_ response: ImageResponse, for request: ImageRequest) {
        guard request.cachePolicy.writesMemory, let cache = configuration.memoryCache else { return }
        if cache.insert(response.image, forKey: request.key, cost: response.pixels.byteCount) {
            emit(.cacheStore, request.key.description)
        }
    }

    /// Already-decoded pixels, scaled down when the options ask for a smaller size.
    static func fit(_ pixels: PixelBuffer, _ options: DecodeOptions) -> Result<DecodedImage, ImageLoadingError> {
        let size = options.outputSize(width: pixels.width, height: pixels.height, swapsAxes: false)
        let metadata = ImageMetadata(
            format: .png, width: pixels.width, height: pixels.height, bitDepth: 8, colorModel: .rgba,
            hasAlpha: true, orientation: 1, orientationApplied: false, isProgressive: false,
            isArithmeticCoded: false, isLossless: true, isAnimated: false, frameCount: 1)
        guard size.width != pixels.width || size.height != pixels.height else {
            return .success(DecodedImage(pixels: pixels, metadata: metadata))
        }
        do {
            return .success(DecodedImage(pixels: try pixels.resized(to: size), metadata: metadata))
        } catch {
            return .failure(.decoding(error))
        }
    }
}
