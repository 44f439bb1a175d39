import Foundation

/// The `.stream` strategy: the body goes into the decoder as it arrives, one
/// `StreamingDecodeSession` per attempt, so the fetch's output is the decoded image. It runs in
/// the decode stage's shared work: identical requests (one key) share one transfer and one
/// decode; two sizes of one URL make two transfers (each decoder needs every byte from the
/// first). A retry starts a fresh decode (a streamed body is not resumed with Range; its
/// previews start again at detail 1). With a disk cache the bytes are also written to its
/// temporary file and stored once the image decoded, under the HTTP cache policy; a 304 to a
/// revalidation decodes the stored entry. Each attempt's decode slot, memory and temporary file
/// are released as it ends.
final class StreamedBody: FetchBody {
    typealias Output = ImageResponse
    let strategy = FetchStrategy.stream
    private let decodeStage: DecodeStage
    private let disk: DiskStage
    private let request: ImageRequest
    private let shared: SharedWork
    private let sourceKey: String
    /// The disk cache the load may write (nil: none, or the request must not write the disk).
    private let writableCache: (any ImageDiskCaching)?
    private var session: StreamingDecodeSession?

    init(request: ImageRequest, shared: SharedWork, decodeStage: DecodeStage, disk: DiskStage) {
        self.decodeStage = decodeStage
        self.disk = disk
        self.request = request
        self.shared = shared
        sourceKey = request.source.identity
        writableCache = request.cachePolicy.writesDisk ? disk.cache : nil
    }

    func prepare(_ fetchRequest: inout FetchRequest) {
        session?.close()
        let session = StreamingDecodeSession(stage: decodeStage, request: request, shared: shared,
                                             teeFile: writableCache?.makeTemporaryFileURL)
        self.session = session
        fetchRequest.bodyConsumer = BodyConsumerReference(session)
    }

    var stopper: @Sendable () -> Void {
        { [session] in session?.cancel() }
    }

    func takeRefusal() -> ImageLoadingError? {
        guard let failure = session?.failure else { return nil }   // the decoder refused the body
        return disk.refused(failure, sourceKey: sourceKey, writes: writableCache != nil)
    }

    func finish(_ exchange: Exchange, lookup: DiskLookup) async -> Result<ImageResponse, ImageLoadingError>? {
        if case .streamed = exchange.result.body, let session { return await finishStreamed(session, exchange, lookup: lookup) }
        // A 304, or a transport that kept the body instead of handing it on (one that does not
        // know `.stream`): decoded as the other strategies decode it.
        let (disk, sourceKey, writes) = (disk, sourceKey, request.cachePolicy.writesDisk)
        guard let payload = await disk.offCooperativePool({ disk in
            disk.payload(from: exchange, sourceKey: sourceKey, writes: writes, lookup: lookup)
        })
        else { return nil }
        switch payload {
        case .failure(let error): return .failure(error)
        case .success(let payload): return await decodeStage.decode(payload, request, shared, disk: disk)
        }
    }

    func endAttempt() {
        session?.close()
    }

    func close() {
        session?.close()
    }

    /// The transfer completed: the decoder's image, and the body's copy stored in the disk cache
    /// (only now, complete and proven to decode) when the HTTP policy allows.
    private func finishStreamed(_ session: StreamingDecodeSession, _ exchange: Exchange,
                                lookup: DiskLookup) async -> Result<ImageResponse, ImageLoadingError> {
        let image: DecodedImage
        switch session.finish() {
        case .success(let decoded): image = decoded
        case .failure(let error): return .failure(disk.refused(error, sourceKey: sourceKey, writes: writableCache != nil))
        }
        var outcome: DiskCacheOutcome?
        if let cache = writableCache {
            let (disk, sourceKey, tee) = (disk, sourceKey, session.takeTee())
            outcome = await disk.offCooperativePool { disk in
                if let tee, let file = tee.completedCopy() {
                    let outcome = disk.store(.file(file), exchange, sourceKey: sourceKey, lookup: lookup, in: cache)
                    // A copy not stored is emptied and removed (emptied at least, should its
                    // directory have become read-only); a stored one was moved into the cache.
                    if case .notStored = outcome { tee.abandon() } else { tee.release() }
                    return outcome
                }
                tee?.abandon()
                // The copy could not be written: the image still loads, the cache keeps nothing
                // of this URL (as when storing fails), and says so.
                let hadEntry = lookup.hadEntry ?? (cache.entry(forKey: sourceKey) != nil)
                return disk.keepOff(.writeFailed, sourceKey: sourceKey, hadEntry: hadEntry, in: cache)
            }
        }
        return .success(ImageResponse(image: image, origin: .network).reporting(outcome))
    }
}
