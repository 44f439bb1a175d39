import Foundation

extension DiskStage {
    /// Turns a completed fetch into the payload the decoder reads, applying the HTTP cache
    /// policy: a 304 serves (and refreshes) the revalidated entry; a 200 that declares an image
    /// is stored, replaces the entry, or is kept off the disk (`no-store` and the like, HTTP-1),
    /// in which case an older entry for the URL is removed too. Nil when a 304 confirmed no
    /// entry the cache still holds (`revalidatedPayload`): the fetch stage then asks again
    /// (`DiskLookup.askingUnconditionally`). `writes`: the request may write the disk.
    func payload(from exchange: Exchange, sourceKey: String, writes: Bool,
                 lookup: DiskLookup) -> Result<Payload, ImageLoadingError>? {
        let storage: Payload.Storage
        switch exchange.result.body {
        case .notModified: return revalidatedPayload(exchange, sourceKey: sourceKey, lookup: lookup)
        case .data(let data): storage = .data(data)
        case .file(let url): storage = .file(url)
        case .streamed: return .failure(.fetch(.bodyRefused("a streamed body has no payload")))   // StreamedBody's
        }
        let pinned = writes && cache != nil ? Self.pin(storage) : nil
        // Only bytes that declare a decodable image are kept (DISK-3): not a 200 OK error page,
        // and not a GIF either.
        if let rejection = Self.notAnImage(storage, descriptor: pinned?.file.descriptor) {
            pinned?.file.close()
            if case .file(let url) = storage { try? FileManager.default.removeItem(at: url) }
            return .failure(.decoding(rejection))
        }
        guard writes, let disk = cache else {
            return .success(Payload(storage: storage, diskKey: nil, origin: .network, ownsFile: true))
        }
        let outcome = store(storage, exchange, sourceKey: sourceKey, lookup: lookup, in: disk)
        guard case .notStored = outcome else {
            if let pinned {
                return .success(Payload(storage: .file(pinned.url), diskKey: sourceKey, origin: .network,
                                        ownsFile: false, diskCache: outcome, pinned: pinned.file))
            }
            if case .file = storage, let entry = disk.entry(forKey: sourceKey) {
                return .success(Payload(storage: .file(entry.url), diskKey: sourceKey, origin: .network,
                                        ownsFile: false, diskCache: outcome))
            }
            return .success(Payload(storage: storage, diskKey: sourceKey, origin: .network,
                                    ownsFile: false, diskCache: outcome))
        }
        pinned?.file.close()
        return .success(Payload(storage: storage, diskKey: nil, origin: .network, ownsFile: true, diskCache: outcome))
    }

    /// The downloaded body held open by this load, taken before the body is moved into the disk
    /// cache, and a path that opens it again (`/proc/self/fd/N`, or `/dev/fd/N`). Once stored,
    /// the entry is the cache's to evict or replace, and another load's store may evict it
    /// before this load decodes it: under load that failed a load that had all its bytes with
    /// `decoding(unreadable)` (the fault soak, now and then under load). An open file outlives its
    /// name, and leaves nothing in any directory. The file's identity is kept beside the
    /// descriptor (`PinnedFile`): should the number be closed and reused elsewhere in the
    /// process, the decode stage reads the entry by name instead. Nil for bytes in memory, or where the file
    /// cannot be opened or reopened by descriptor (then the entry's own file is decoded, as before).
    private static func pin(_ storage: Payload.Storage) -> (url: URL, file: PinnedFile)? {
        guard case .file(let url) = storage, let file = PinnedFile(url) else { return nil }
        for directory in ["/proc/self/fd", "/dev/fd"] {
            let path = "\(directory)/\(file.descriptor)"
            if access(path, R_OK) == 0 { return (URL(fileURLWithPath: path), file) }
        }
        file.close()
        return nil
    }

    /// Why the body's first bytes do not declare an image Imago decodes (nil when they do);
    /// `descriptor`: one open on the file already (the pinned body), read instead of opening it.
    private static func notAnImage(_ storage: Payload.Storage, descriptor: Int32?) -> DecodeError? {
        do throws(DecodeError) {
            _ = try ImageDecoder.sniff(Payload.sniff(storage, descriptor: descriptor))
            return nil
        } catch {
            return error
        }
    }

    /// A 304: the revalidated entry's bytes serve the load (a disk hit), with its stored headers
    /// refreshed by the 304's and its freshness restarted. Should the refreshed headers forbid
    /// storing it after all (a 304 that now says `no-store`), this load still gets the bytes and
    /// the entry is removed. Nil when the 304 confirms nothing the cache holds: it names another
    /// strong ETag (RFC 9111 §4.3.4), or the entry was evicted or replaced by another writer
    /// since the lookup.
    private func revalidatedPayload(_ exchange: Exchange, sourceKey: String,
                                    lookup: DiskLookup) -> Result<Payload, ImageLoadingError>? {
        guard let disk = cache, let stored = lookup.revalidating else {
            return .failure(.fetch(.httpStatus(304)))   // a 304 to a request that asked nothing
        }
        guard HTTPCachePolicy.confirms(exchange.result.head, stored) else { return nil }
        let requestHeaders = HTTPCachePolicy.sentRequestHeaders
        let metadata = policy.refreshed(stored, with: exchange.result.head, requestHeaders: requestHeaders,
                                        requestedAt: exchange.requestedAt, receivedAt: exchange.receivedAt)
        let payload: Payload
        switch policy.storage(for: metadata, receivedAt: exchange.receivedAt) {
        case .store:
            guard (try? disk.refresh(forKey: sourceKey, metadata: metadata, revalidated: stored)) == true,
                  let entry = disk.entry(forKey: sourceKey)
            else { return nil }
            payload = Payload(storage: .file(entry.url), diskKey: sourceKey, origin: .disk, ownsFile: false,
                              diskCache: .revalidated)
        case .refuse(let reason):
            guard let entry = disk.entry(forKey: sourceKey), entry.metadata.etag == stored.etag,
                  entry.metadata.lastModified == stored.lastModified, let data = try? entry.data()
            else { return nil }
            try? disk.removeEntry(forKey: sourceKey)
            diagnostics.diskNotStored(sourceKey, reason)
            payload = Payload(storage: .data(data), diskKey: nil, origin: .disk, ownsFile: false,
                              diskCache: .notStored(reason))
        }
        diagnostics.diskRevalidated(sourceKey)
        return .success(payload)
    }
}
