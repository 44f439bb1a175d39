import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DiskCache {
    /// Stores `data` (the original encoded bytes of a complete, validated image: DISK-3) under
    /// `key`, replacing any previous entry, then evicts least recently accessed entries until
    /// the size limit holds again (never this one).
    /// - Returns: false, storing nothing and evicting nothing, when the entry alone (bytes plus
    ///   sidecar) would exceed `sizeLimit`.
    @discardableResult
    public func store(_ data: Data, forKey key: String, metadata: Metadata = Metadata()) throws -> Bool {
        guard fits(byteCount: data.count, key: key, metadata: metadata) else { return false }
        try lock.recreateIfRemoved()
        let (fd, temporary) = try DiskFileIO.createTemporaryFile(in: files.path)
        defer { close(fd) }
        do {
            try DiskFileIO.writeAll(fd, data, path: temporary)
            try publish(payloadFD: fd, at: temporary, key: key, metadata: metadata)
        } catch {
            DiskFileIO.removeQuietly(temporary)
            throw error
        }
        return true
    }

    /// Moves the file at `url` (e.g. a finished download) into the cache under `key`. On the
    /// same file system this is a rename; otherwise the file is copied in 1 MiB chunks (never
    /// read whole into memory) and the source removed once the entry is published.
    /// - Returns: false when the entry alone would exceed `sizeLimit`; the source is then left
    ///   where it is, and the caller still owns it.
    @discardableResult
    public func store(fileAt url: URL, forKey key: String, metadata: Metadata = Metadata()) throws -> Bool {
        let source = url.standardizedFileURL.path
        guard let info = try DiskFileIO.status(source), (info.st_mode & S_IFMT) == S_IFREG else {
            throw DiskFileIO.error("store", source, ENOENT)
        }
        guard fits(byteCount: Int(info.st_size), key: key, metadata: metadata) else { return false }

        // A body the cache handed out (`makeTemporaryFileURL`) is a temporary of this directory
        // already, under a unique name: it is published as it is, one rename fewer per store.
        let handedOut = (source as NSString).deletingLastPathComponent == files.path
            && (source as NSString).lastPathComponent.hasPrefix(DiskCacheNaming.handedOutPrefix)
        let temporary = handedOut ? source : files.path + "/" + DiskCacheNaming.temporaryPrefix + UUID().uuidString
        let fd: Int32
        let copied: Bool
        if handedOut || rename(source, temporary) == 0 {
            copied = false
            fd = try DiskFileIO.openFile(temporary, O_RDONLY)
        } else if errno == EXDEV {
            copied = true
            fd = try DiskFileIO.openFile(temporary, O_WRONLY | O_CREAT | O_EXCL)
        } else {
            throw DiskFileIO.error("rename", source + " -> " + temporary)
        }
        defer { close(fd) }
        do {
            if copied { _ = try DiskFileIO.copyContents(of: source, to: fd, path: temporary) }
            try publish(payloadFD: fd, at: temporary, key: key, metadata: metadata)
        } catch {
            // A moved file stays the caller's: put it back (a handed-out one never moved). A
            // partial copy is dropped.
            if !handedOut, copied || rename(temporary, source) != 0 { DiskFileIO.removeQuietly(temporary) }
            throw error
        }
        if copied { DiskFileIO.removeQuietly(source) }
        return true
    }

    /// Records a successful revalidation (HTTP 304): new validators, `storedAt` = now, so the
    /// entry is fresh again. Counts as an access. With `revalidated` (the metadata the
    /// conditional request was made from), only an entry that still has its validators is
    /// refreshed: one another writer replaced meanwhile is not the one the server confirmed.
    /// - Returns: false when there is no (valid) entry for `key`, or it is not `revalidated`'s.
    @discardableResult
    public func refresh(forKey key: String, metadata: Metadata, revalidated: Metadata? = nil) throws -> Bool {
        let hash = DiskCacheNaming.hash(forKey: key)
        return try lock.withLock { state, session in
            try synchronize(&state, session)
            let sidecar: DiskCacheSidecar
            switch try inspect(hash: hash, key: key) {
            case .hit(let found): sidecar = found
                if let revalidated, found.etag != revalidated.etag || found.lastModified != revalidated.lastModified {
                    return false
                }
            case .miss: return false
            case .suspect:
                session.didChangeDirectory = try files.removeEntry(hash)
                state.index[hash] = nil
                return false
            }
            let now = configuration.now()
            let updated = DiskCacheSidecar(key: key, byteCount: sidecar.byteCount, payloadInode: sidecar.payloadInode,
                                           storedAt: now, metadata: metadata)
            let encoded = try updated.encoded()
            // No fsync: a revalidation is on the load's critical path (an fsync cost more than
            // the whole 304 exchange), and a sidecar lost to a crash only costs the entry: a
            // sidecar that does not decode, or does not describe its payload, is a miss, removed.
            let temporary = try writeSidecar(encoded, synchronizing: false)
            do {
                try DiskFileIO.rename(temporary, to: files.sidecarPath(hash))
            } catch {
                DiskFileIO.removeQuietly(temporary)
                throw error
            }
            session.didChangeDirectory = true
            _ = try DiskFileIO.setModificationTime(path: files.payloadPath(hash), now)
            let accessTime = try DiskFileIO.status(files.payloadPath(hash))?.st_mtim.nanosecondsSince1970 ?? 0
            state.index[hash] = .init(payloadSize: sidecar.byteCount, sidecarSize: encoded.count, accessTime: accessTime)
            _ = try files.evict(&state.index, toSize: configuration.sizeLimit, sparing: hash)
            return true
        }
    }

    // MARK: - Publishing

    /// Whether an entry of `byteCount` bytes can be stored at all. The sidecar is measured with
    /// the widest possible inode and 64 bytes of slack for the date, so the real entry is never
    /// larger than what was admitted here and the decision is made before any file is touched.
    /// Most stores pass on a bound of the sidecar's size without encoding it
    /// (`DiskCacheSidecar.encodedSizeBound`); only an entry near the limit is measured exactly.
    func fits(byteCount: Int, key: String, metadata: Metadata) -> Bool {
        if byteCount + DiskCacheSidecar.encodedSizeBound(key: key, metadata: metadata) + 64 <= configuration.sizeLimit {
            return true
        }
        let widest = DiskCacheSidecar(key: key, byteCount: byteCount, payloadInode: .max,
                                      storedAt: configuration.now(), metadata: metadata)
        guard let sidecar = try? widest.encoded() else { return false }
        return byteCount + sidecar.count + 64 <= configuration.sizeLimit
    }

    /// Makes the complete temporary payload at `temporary` (open as `payloadFD`) the entry for
    /// `key`: fsync, write the sidecar beside it, then under the lock remove the old payload,
    /// rename the sidecar and then the payload into place, stamp its access time, and evict.
    private func publish(payloadFD: Int32, at temporary: String, key: String, metadata: Metadata) throws {
        let hash = DiskCacheNaming.hash(forKey: key)
        if configuration.synchronizesWrites { try DiskFileIO.sync(payloadFD, path: temporary) }
        let now = configuration.now()
        let payload = try DiskFileIO.fileStatus(payloadFD, path: temporary)
        let sidecar = try DiskCacheSidecar(key: key, byteCount: Int(payload.st_size),
                                           payloadInode: UInt64(payload.st_ino), storedAt: now,
                                           metadata: metadata).encoded()
        // Not fsync'd: the sidecar records the payload's inode and size, and one that did not
        // reach the disk whole (a power loss) does not decode or disagrees, so its entry is a
        // miss, never wrong bytes. The payload's own fsync is what keeps a torn image from being
        // served. A second fsync per store cost 0.4 ms here, on a thread the decodes share.
        let sidecarTemporary = try writeSidecar(sidecar, synchronizing: false)
        defer { DiskFileIO.removeQuietly(sidecarTemporary) }   // no-op once renamed

        try lock.withLock { state, session in
            try synchronize(&state, session)
            session.didChangeDirectory = true
            try DiskFileIO.remove(files.payloadPath(hash))
            try DiskFileIO.rename(sidecarTemporary, to: files.sidecarPath(hash))
            try DiskFileIO.rename(temporary, to: files.payloadPath(hash))
            // Stamp the access time only now: a temporary file keeps its real mtime, which is
            // what other processes' sweeps judge its age by.
            try DiskFileIO.setModificationTime(payloadFD, now, path: files.payloadPath(hash))
            let accessTime = try DiskFileIO.fileStatus(payloadFD, path: files.payloadPath(hash)).st_mtim
            state.index[hash] = .init(payloadSize: Int(payload.st_size), sidecarSize: sidecar.count,
                                      accessTime: accessTime.nanosecondsSince1970)
            _ = try files.evict(&state.index, toSize: configuration.sizeLimit, sparing: hash)
            if let last = state.lastSweep, now.timeIntervalSince(last) < configuration.sweepInterval.seconds {
                return
            }
            try sweep(&state, &session)
        }
    }

    /// Writes a sidecar to a new temporary file (fsync'd when configured and `synchronizing`);
    /// returns its path.
    private func writeSidecar(_ data: Data, synchronizing: Bool = true) throws -> String {
        let (fd, path) = try DiskFileIO.createTemporaryFile(in: files.path)
        defer { close(fd) }
        do {
            try DiskFileIO.writeAll(fd, data, path: path)
            if configuration.synchronizesWrites && synchronizing { try DiskFileIO.sync(fd, path: path) }
        } catch {
            DiskFileIO.removeQuietly(path)
            throw error
        }
        return path
    }
}
