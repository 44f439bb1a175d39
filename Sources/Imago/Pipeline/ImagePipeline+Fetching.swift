import Foundation
import Synchronization

extension ImagePipeline {
    /// The fetch stage for one source: transport under the network limit, transient failures
    /// retried with back-off, and the complete body offered to the disk cache
    /// (`payload(from:…)`). `lookup` is what the disk cache held for the source.
    func fetch(_ url: URL, _ request: ImageRequest, lookup: DiskLookup,
               shared: SharedWork) async -> Result<Payload, ImageLoadingError> {
        let sourceKey = request.source.identity
        var lookup = lookup
        var fetchRequest = FetchRequest(
            url: url, headers: lookup.conditionalHeaders, strategy: request.fetchStrategy ?? configuration.fetchStrategy,
            idleTimeout: configuration.idleTimeout, maxResponseSize: configuration.maxResponseSize,
            // With a disk cache, downloads land in its directory: the finished file is renamed
            // into the cache, and one a killed process left behind is swept with its leftovers.
            temporaryDirectory: configuration.diskCache?.directory ?? configuration.temporaryDirectory)
        // A download to file keeps what a broken transfer received, for the retries (and, with
        // a disk cache, later loads) to continue with Range / If-Range (ResumableDownload).
        let persistsPartials = request.cachePolicy.writesDisk
        var resumption = makeResumption(for: fetchRequest, sourceKey, persistent: persistsPartials)
        defer { resumption?.close() }
        var retries = 0, restarts = 0
        while true {
            if resumption?.isSpent == true { resumption?.close(); resumption = makeResumption(for: fetchRequest, sourceKey, persistent: persistsPartials) }
            let attempt = resumption.map { fetchRequest.resuming($0) } ?? fetchRequest
            let outcome = await networkLimiter.run(priority: { shared.priority }) {
                await self.transportFetch(attempt, sourceKey, shared)
            }
            resumption?.settle(after: outcome.map { $0.map(\.result) })
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
            case .success(let exchange)?:
                if exchange.result.resumedFrom > 0 {
                    counters.record { $0.resumedDownloads += 1; $0.resumedBytes += exchange.result.resumedFrom }
                    emit(.resumed, sourceKey)
                }
                if let payload = payload(from: exchange, request, lookup: lookup) { return payload }
                // The 304 confirmed no entry the cache still holds (evicted, replaced by another
                // writer, or another ETag): ask again, unconditionally. Once: a plain request
                // cannot be answered 304 to any effect (`payload` fails that one).
                lookup = DiskLookup()
                fetchRequest.headers = [:]
            case .failure(let error)?:
                switch await backOff(after: error, retries: &retries, sourceKey) {
                case .retry: continue
                case .giveUp(let failure):
                    if failure == .cancelled { resumption?.settle(after: nil) }   // a cancel keeps nothing, a kept partial included
                    return .failure(failure)
                }
            }
        }
    }

    enum BackOff {
        case retry
        case giveUp(ImageLoadingError)
    }

    /// After a failed attempt: waits out the retry policy's back-off on the configured clock
    /// when the error is worth retrying and retries remain (`.retry`), else the failure to end
    /// with (`.cancelled` when cancelled during the wait: no more requests, RETRY-2).
    func backOff(after error: FetchError, retries: inout Int, _ sourceKey: String) async -> BackOff {
        guard let wait = configuration.retryPolicy.delay(beforeRetry: retries + 1, after: error) else {
            return .giveUp(.fetch(error))
        }
        retries += 1
        emit(.retry, sourceKey)
        do {
            #if IMAGO_MUTANTS
            if Mutation.on(.retryBackOffOnWallClock) { try await Task.sleep(for: wait) } else {
                try await configuration.clock.sleep(for: wait)
            }
            #else
            try await configuration.clock.sleep(for: wait)
            #endif
            return .retry
        } catch {
            return .giveUp(.cancelled)
        }
    }

    /// The partial for this fetch: in the disk cache's directory under a name per source (kept
    /// for later loads, bounded also by the cache's size limit), else a file for this fetch's
    /// retries only (also when the request must not write the disk: `persistent` false). nil for
    /// in-memory fetches, or when another fetch owns the source's partial.
    private func makeResumption(for request: FetchRequest, _ sourceKey: String, persistent: Bool) -> ResumableDownload? {
        guard request.strategy == .downloadToFile else { return nil }
        if persistent, let cache = configuration.diskCache, request.temporaryDirectory == cache.directory {
            return .persistent(in: cache.directory, sourceKey: sourceKey, url: request.url,
                               limit: min(request.maxResponseSize, cache.configuration.sizeLimit))
        }
        return .ephemeral(in: request.temporaryDirectory, url: request.url, limit: request.maxResponseSize)
    }

    func transportFetch(_ request: FetchRequest, _ key: String, _ shared: SharedWork) async -> Result<Exchange, FetchError> {
        counters.record { $0.fetches += 1 }
        emit(.fetchStart, key)
        let firstByte = Mutex(false)
        let requestedAt = cacheClock()
        do {
            let result = try await configuration.transport.fetch(request) { progress in
                if !firstByte.withLock({ seen in defer { seen = true }; return seen }) { self.emit(.firstByte, key) }
                shared.report(progress)
            }
            emit(.fetchEnd, key)
            return .success(Exchange(result: result, requestedAt: requestedAt, receivedAt: cacheClock()))
        } catch {
            emit(.fetchEnd, key)
            return .failure(error)
        }
    }

    /// The clock HTTP freshness is judged by: the disk cache's.
    func cacheClock() -> Date {
        configuration.diskCache?.configuration.now() ?? Date()
    }
}

/// A completed transport fetch and when it ran, by the cache's clock (RFC 9111's request and
/// response times, for the age of what is stored).
struct Exchange: Sendable {
    let result: FetchResult
    let requestedAt: Date
    let receivedAt: Date
}

/// What the disk cache held for a source before its fetch.
struct DiskLookup: Sendable {
    /// The stale (or `no-cache`) entry's metadata, when the fetch revalidates it.
    var revalidating: DiskCache.Metadata?
    /// `If-None-Match` / `If-Modified-Since` for that revalidation (empty: a plain fetch).
    var conditionalHeaders: [String: String] = [:]
    /// Whether an entry for the source existed (nil: the request does not read the disk).
    var hadEntry: Bool?
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
