import Foundation

extension ImagePipeline {
    /// The `.streaming` strategy: fetch and decode at once, the body going into the decoder as it
    /// arrives (`StreamingDecodeSession`). It runs in the decode stage's shared work, so identical
    /// requests (one key) share one transfer and one decode, and a late joiner gets the same
    /// result; two sizes of one URL make two transfers (each decoder needs every byte from the
    /// first). Status at the head, truncation, the size limit, retries and cancellation are the
    /// transport's and the retry policy's, as for the other strategies; a retry starts a fresh
    /// decode (a streamed body is not resumed with Range; its previews start again at detail 1).
    /// With a disk cache the bytes are also written to its temporary file and stored once the
    /// image decoded, under the HTTP cache policy; a 304 to a revalidation decodes the stored
    /// entry. Each attempt's decode slot, memory and temporary file are released as it ends.
    func streamAndDecode(_ url: URL, _ request: ImageRequest, _ shared: SharedWork, lookup: DiskLookup) async -> Outcome {
        let sourceKey = request.source.identity
        var lookup = lookup
        let disk = request.cachePolicy.writesDisk ? configuration.diskCache : nil
        var retries = 0, plainAgain = false
        while true {
            let session = StreamingDecodeSession(pipeline: self, request: request, shared: shared, teeDirectory: disk?.directory)
            defer { session.close() }
            var fetchRequest = FetchRequest(
                url: url, headers: lookup.conditionalHeaders, strategy: .streaming, idleTimeout: configuration.idleTimeout,
                maxResponseSize: configuration.maxResponseSize,
                temporaryDirectory: configuration.diskCache?.directory ?? configuration.temporaryDirectory)
            fetchRequest.bodyConsumer = BodyConsumerReference(session)
            let attempt = fetchRequest
            let outcome = await networkLimiter.run(priority: { shared.priority }) {
                await withTaskCancellationHandler {
                    await self.transportFetch(attempt, sourceKey, shared)
                } onCancel: {
                    session.cancel()
                }
            }
            if let failure = session.failure {   // the decoder refused the body
                return refused(failure, disk: disk, sourceKey: sourceKey)
            }
            switch outcome {
            case nil, .failure(.cancelled)?:
                return .failure(.cancelled)
            case .success(let exchange)?:
                if case .streamed = exchange.result.body {
                    return finishStreamed(session, exchange, request, lookup: lookup, disk: disk)
                }
                // A 304, or a transport that kept the body instead of handing it on (one that
                // does not know `.streaming`): decoded as the other strategies decode it.
                guard let payload = payload(from: exchange, request, lookup: lookup) else {
                    // The 304 confirmed no entry the cache still holds: ask again, unconditionally, once.
                    if plainAgain { return .failure(.fetch(.httpStatus(304))) }
                    plainAgain = true
                    lookup = DiskLookup()
                    continue
                }
                switch payload {
                case .failure(let error): return .failure(error)
                case .success(let payload): return await decodeFetched(payload, request, shared)
                }
            case .failure(let error)?:
                session.close()   // nothing held through the back-off
                switch await backOff(after: error, retries: &retries, sourceKey) {
                case .retry: continue
                case .giveUp(let failure): return .failure(failure)
                }
            }
        }
    }

    /// A body the decoder refused is the server's newest word on the URL and not an image: an
    /// older entry must not serve later loads either (the other strategies store, fail to decode
    /// and remove; CACHE-4, DISK-3).
    private func refused(_ failure: ImageLoadingError, disk: DiskCache?, sourceKey: String) -> Outcome {
        if case .decoding(let error) = failure, error != .cancelled, let disk, disk.entry(forKey: sourceKey) != nil {
            try? disk.removeEntry(forKey: sourceKey)
        }
        return .failure(failure)
    }

    /// The transfer completed: the decoder's image, and the body's copy stored in the disk cache
    /// (only now, complete and proven to decode) when the HTTP policy allows.
    private func finishStreamed(_ session: StreamingDecodeSession, _ exchange: Exchange, _ request: ImageRequest,
                                lookup: DiskLookup, disk: DiskCache?) -> Outcome {
        let sourceKey = request.source.identity
        let image: DecodedImage
        switch session.finish() {
        case .success(let decoded): image = decoded
        case .failure(let error): return refused(error, disk: disk, sourceKey: sourceKey)
        }
        var outcome: DiskCacheOutcome?
        if let disk {
            if let file = session.takeTeeFile() {
                outcome = diskStore(.file(file), exchange, sourceKey: sourceKey, lookup: lookup, disk: disk)
                if case .notStored = outcome { try? FileManager.default.removeItem(at: file) }
            } else {
                // The copy could not be written: the image still loads, the cache keeps nothing
                // of this URL (as when storing fails), and says so.
                let hadEntry = lookup.hadEntry ?? (disk.entry(forKey: sourceKey) != nil)
                outcome = keptOffDisk(.notStored(.writeFailed), sourceKey: sourceKey, hadEntry: hadEntry, disk: disk)
            }
        }
        return .success(ImageResponse(image: image, origin: .network).reporting(outcome))
    }
}
