import Foundation
import Synchronization

extension ImagePipeline {
    /// The fetch stage for one source: transport under the network limit, transient failures
    /// retried with back-off, and the complete body stored in the disk cache.
    func fetch(_ url: URL, _ request: ImageRequest, validators: DiskCache.Metadata?,
               shared: SharedWork) async -> Result<Payload, ImageLoadingError> {
        let sourceKey = request.source.identity
        var headers: [String: String] = [:]
        if let etag = validators?.etag { headers["If-None-Match"] = etag }
        if let lastModified = validators?.lastModified { headers["If-Modified-Since"] = lastModified }
        let fetchRequest = FetchRequest(
            url: url, headers: headers, strategy: request.fetchStrategy ?? configuration.fetchStrategy,
            idleTimeout: configuration.idleTimeout, maxResponseSize: configuration.maxResponseSize,
            // With a disk cache, downloads land in its directory: the finished file is renamed
            // into the cache, and one a killed process left behind is swept with its leftovers.
            temporaryDirectory: configuration.diskCache?.directory ?? configuration.temporaryDirectory)
        // A download to file keeps what a broken transfer received, for the retries (and, with
        // a disk cache, later loads) to continue with Range / If-Range (ResumableDownload).
        var resumption = makeResumption(for: fetchRequest, sourceKey)
        defer { resumption?.close() }
        var retries = 0, restarts = 0
        while true {
            if resumption?.isSpent == true { resumption?.close(); resumption = makeResumption(for: fetchRequest, sourceKey) }
            let attempt = resumption.map { fetchRequest.resuming($0) } ?? fetchRequest
            let outcome = await networkLimiter.run(priority: { shared.priority }) {
                await self.transportFetch(attempt, sourceKey, shared)
            }
            resumption?.settle(after: outcome)
            // The answer to a range request could not continue the partial (416, a 206 for
            // other bytes): it is dropped; start over at once without Range, a bounded number
            // of times (each needs a partial kept by an earlier failed attempt anyway).
            if resumption?.takeRestartRequest() == true, restarts < 2 {
                restarts += 1
                continue
            }
            switch outcome {
            case nil, .failure(.cancelled)?:
                return .failure(.cancelled)
            case .success(let result)?:
                if result.resumedFrom > 0 {
                    counters.record { $0.resumedDownloads += 1; $0.resumedBytes += result.resumedFrom }
                    emit(.resumed, sourceKey)
                }
                return payload(from: result, request, validators: validators)
            case .failure(let error)?:
                guard let wait = configuration.retryPolicy.delay(beforeRetry: retries + 1, after: error) else {
                    return .failure(.fetch(error))
                }
                retries += 1
                emit(.retry, sourceKey)
                do {
                    try await configuration.clock.sleep(for: wait)
                } catch {
                    return .failure(.cancelled)   // cancelled during back-off: no more requests (RETRY-2)
                }
            }
        }
    }

    /// The partial for this fetch: in the disk cache's directory under a name per source (kept
    /// for later loads, bounded also by the cache's size limit), else a file for this fetch's
    /// retries only. nil for in-memory fetches, or when another fetch owns the source's partial.
    private func makeResumption(for request: FetchRequest, _ sourceKey: String) -> ResumableDownload? {
        guard request.strategy == .downloadToFile else { return nil }
        if let cache = configuration.diskCache, request.temporaryDirectory == cache.directory {
            return .persistent(in: cache.directory, sourceKey: sourceKey, url: request.url,
                               limit: min(request.maxResponseSize, cache.configuration.sizeLimit))
        }
        return .ephemeral(in: request.temporaryDirectory, url: request.url, limit: request.maxResponseSize)
    }

    private func transportFetch(_ request: FetchRequest, _ key: String, _ shared: SharedWork) async -> Result<FetchResult, FetchError> {
        counters.record { $0.fetches += 1 }
        emit(.fetchStart, key)
        let firstByte = Mutex(false)
        do {
            let result = try await configuration.transport.fetch(request) { progress in
                if !firstByte.withLock({ seen in defer { seen = true }; return seen }) { self.emit(.firstByte, key) }
                shared.report(progress)
            }
            emit(.fetchEnd, key)
            return .success(result)
        } catch {
            emit(.fetchEnd, key)
            return .failure(error)
        }
    }

    private func payload(from result: FetchResult, _ request: ImageRequest,
                         validators: DiskCache.Metadata?) -> Result<Payload, ImageLoadingError> {
        let sourceKey = request.source.identity
        let disk = request.cachePolicy.writesDisk ? configuration.diskCache : nil
        var metadata = DiskCache.Metadata(etag: result.head.etag, lastModified: result.head.lastModified)
        let storage: Payload.Storage
        switch result.body {
        case .notModified:
            guard let cache = configuration.diskCache, let validators else { return .failure(.fetch(.httpStatus(304))) }
            metadata.etag = metadata.etag ?? validators.etag
            metadata.lastModified = metadata.lastModified ?? validators.lastModified
            _ = try? cache.refresh(forKey: sourceKey, metadata: metadata)
            guard let entry = cache.entry(forKey: sourceKey) else {
                return .failure(.fetch(.transport("the revalidated cache entry disappeared")))
            }
            counters.record { $0.diskHits += 1 }
            return .success(Payload(storage: .file(entry.url), diskKey: sourceKey, origin: .disk, ownsFile: false))
        case .data(let data): storage = .data(data)
        case .file(let url): storage = .file(url)
        }
        // Only bytes that declare a decodable image are kept (DISK-3): not a 200 OK error page,
        // and not a GIF either.
        do throws(DecodeError) {
            _ = try ImageDecoder.sniff(Payload.sniff(storage))
        } catch {
            if case .file(let url) = storage { try? FileManager.default.removeItem(at: url) }
            return .failure(.decoding(error))
        }
        guard let disk else {
            return .success(Payload(storage: storage, diskKey: nil, origin: .network, ownsFile: true))
        }
        let stored: Bool
        switch storage {
        case .data(let data): stored = (try? disk.store(data, forKey: sourceKey, metadata: metadata)) == true
        case .file(let url): stored = (try? disk.store(fileAt: url, forKey: sourceKey, metadata: metadata)) == true
        }
        if stored { emit(.cacheStore, sourceKey) }
        if stored, case .file = storage, let entry = disk.entry(forKey: sourceKey) {
            return .success(Payload(storage: .file(entry.url), diskKey: sourceKey, origin: .network, ownsFile: false))
        }
        return .success(Payload(storage: storage, diskKey: stored ? sourceKey : nil, origin: .network, ownsFile: !stored))
    }
}

private extension FetchRequest {
    /// This request continuing `resumption`'s partial, with its Range / If-Range (if any).
    func resuming(_ resumption: ResumableDownload) -> FetchRequest {
        var request = self
        request.resumption = resumption
        request.headers.merge(resumption.rangeHeaders()) { _, range in range }
        return request
    }
}
