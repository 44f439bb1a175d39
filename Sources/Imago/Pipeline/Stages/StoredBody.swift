import Foundation

/// The `.data` and `.file` strategies: the body is kept whole (in memory, or in a
/// file) and becomes the `Payload` every decode of the source reads, stored in the disk cache
/// first when the HTTP cache policy allows. A download to file keeps what a broken transfer
/// received, for the retries (and, with a disk cache, later loads) to continue with Range /
/// If-Range (`ResumableDownload`).
final class StoredBody: FetchBody {
    typealias Output = Payload
    let strategy: FetchStrategy
    private let stage: FetchStage
    private let url: URL
    private let sourceKey: String
    /// The request may write the disk: its partial is kept for later loads, its body stored.
    private let writes: Bool
    private var resumption: ResumableDownload?

    init(_ strategy: FetchStrategy, url: URL, request: ImageRequest, stage: FetchStage) {
        self.strategy = strategy
        self.stage = stage
        self.url = url
        sourceKey = request.source.identity
        writes = request.cachePolicy.writesDisk
        resumption = makeResumption()
    }

    func prepare(_ request: inout FetchRequest) {
        if resumption?.isSpent == true {
            resumption?.close()
            resumption = makeResumption()
        }
        // With a disk cache, a download lands in a file the cache handed out, so the finished
        // body is renamed into it and a killed process's leftover is swept with the cache's.
        if strategy == .file { request.downloadFileURL = stage.disk.cache?.makeTemporaryFileURL() }
        guard let resumption else { return }
        request.resumption = resumption
        request.headers.merge(resumption.rangeHeaders()) { _, range in range }
    }

    func settle(after outcome: Result<Exchange, FetchError>?) -> Bool {
        resumption?.settle(after: outcome.map { $0.map(\.result) })
        return resumption?.takeRestartRequest() == true
    }

    func finish(_ exchange: Exchange, lookup: DiskLookup) async -> Result<Payload, ImageLoadingError>? {
        let resumedFrom = exchange.result.resumedFrom
        if resumedFrom > 0 {
            stage.diagnostics.resumed(sourceKey, bytes: resumedFrom)
        }
        let (disk, sourceKey, writes) = (stage.disk, sourceKey, writes)
        return await disk.offCooperativePool { disk in
            disk.payload(from: exchange, sourceKey: sourceKey, writes: writes, lookup: lookup)
        }
    }

    func giveUp(_ failure: ImageLoadingError) {
        if failure == .cancelled { resumption?.settle(after: nil) }   // a cancel keeps nothing, a kept partial included
    }

    func close() {
        resumption?.close()
    }

    /// The partial for this fetch: the one the disk cache keeps for the source (kept for later
    /// loads, bounded also by the cache's size limit), else a file for this fetch's retries only
    /// (in the disk cache's directory when there is one, so the finished body is renamed into
    /// it; also when the request must not write the disk). Nil for in-memory fetches, or when
    /// another fetch owns the source's partial.
    private func makeResumption() -> ResumableDownload? {
        guard strategy == .file else { return nil }
        if writes, let cache = stage.disk.cache {
            return .persistent(cache.partialDownloadFiles(forKey: sourceKey), temporaries: cache.makeTemporaryFileURL,
                               url: url, limit: min(stage.network.maxResponseSize, cache.sizeLimit),
                               locking: stage.network.partialDownloadLocking)
        }
        if let cache = stage.disk.cache {
            return .ephemeral(temporaries: cache.makeTemporaryFileURL, url: url, limit: stage.network.maxResponseSize)
        }
        return .ephemeral(in: stage.network.temporaryDirectory, url: url, limit: stage.network.maxResponseSize)
    }
}
