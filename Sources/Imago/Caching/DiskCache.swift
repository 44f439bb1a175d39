import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A size-limited directory of original encoded image bytes with their HTTP metadata: the second
/// level of the loading pipeline. Synchronous and thread-safe; calls block on file I/O, so the
/// pipeline calls it off the main actor. Several processes may share one directory.
///
/// Layout (see `DiskCacheNaming`): each entry is a payload file `<sha256(key)>` holding exactly
/// the stored bytes, plus a sidecar `<sha256(key)>.meta`. A sidecar rather than a header inside
/// one file, so that `Entry.url` is a plain file a decoder can stream directly.
///
/// Atomic publish (DISK-1, DISK-2): payload and sidecar are each written to a `.tmp-<uuid>` file
/// in the same directory (the payload fsync'd), then, under the directory lock, the old payload
/// is removed, the sidecar renamed into place, and the payload renamed into place last. A payload
/// therefore becomes visible only whole and only after its sidecar; the sidecar records the
/// payload's inode and size, so an old payload can never pass for a new sidecar's, and a sidecar
/// that a power loss left incomplete makes its entry a miss. Two writers of
/// one key (threads or processes) publish one after the other: last writer wins, never a mix.
/// A crash leaves at worst a temporary file or an orphan sidecar, removed by the next sweep.
///
/// Recency: a hit sets the payload's mtime to the cache clock's now (`futimens`); atime is not
/// used (often disabled by `noatime`/`relatime`). Eviction removes the least recently accessed.
///
/// Size limit (DISK-4): after every store the directory holds at most `sizeLimit` bytes
/// (payloads plus sidecars). The total comes from an in-memory index that is re-listed from the
/// directory whenever another process changed it (a change counter in `.lock`), and eviction
/// runs under an `flock` on `.lock`, so processes neither over- nor under-evict.
public final class DiskCache: Sendable {
    /// The cache's limits and bookkeeping knobs, fixed when the cache is opened; every property
    /// states its default.
    public struct Configuration: Sendable {
        /// Most bytes held: payloads plus sidecars (default 256 MiB).
        public var sizeLimit: Int
        /// Temporary files younger than this are left alone by sweeps (default 10 minutes):
        /// they may be another live process's write in flight. Older ones are crash leftovers.
        public var temporaryFileGracePeriod: Duration
        /// A store runs a full sweep (validating every entry) when the last one is older than
        /// this (default 1 hour). `init` always sweeps.
        public var sweepInterval: Duration
        /// fsync each payload before publishing it (default true), so a crash cannot leave a
        /// visible entry whose blocks never reached the disk.
        public var synchronizesWrites: Bool
        /// The clock for the cache's own bookkeeping: `storedAt`, recorded access times (which
        /// entry is evicted first) and the age of temporary files in sweeps (default
        /// `Date.init`); inject one in tests. HTTP freshness is not judged by it: the pipeline
        /// dates each response on its own clock (`ImagePipeline.Configuration.Dependencies.clock`) and keeps
        /// those dates in the entry's metadata (`storedAt` stands in only for an entry stored
        /// without them).
        public var now: @Sendable () -> Date

        /// A configuration with every default: 256 MiB, a 10-minute grace period for temporary
        /// files, a full sweep at most hourly, fsync before publishing, and `Date.init` as the
        /// clock.
        public init(sizeLimit: Int = 256 << 20,
                    temporaryFileGracePeriod: Duration = .seconds(600),
                    sweepInterval: Duration = .seconds(3600),
                    synchronizesWrites: Bool = true,
                    now: @escaping @Sendable () -> Date = Date.init) {
            self.sizeLimit = sizeLimit
            self.temporaryFileGracePeriod = temporaryFileGracePeriod
            self.sweepInterval = sweepInterval
            self.synchronizesWrites = synchronizesWrites
            self.now = now
        }
    }

    /// The cache's directory, standardized (`standardizedFileURL`); entries, sidecars, the `.lock`
    /// file and handed-out temporary files all live directly in it.
    public let directory: URL
    /// The limits and clock the cache was opened with.
    public let configuration: Configuration
    let files: DiskCacheDirectory
    let lock: DirectoryLock<DiskCacheState>

    /// Opens (creating if needed) the cache in `directory` and sweeps it. Should the directory
    /// be removed later, the cache makes it (and its lock file) again at its next write.
    /// - Throws: `DiskCacheError` when the directory cannot be used: it cannot be created (a
    ///   file in the way: `ENOTDIR`), this process may not write it (`EACCES`, `EROFS`), or its
    ///   lock file cannot be opened. Its `reason` reads as the end of a sentence.
    public init(directory: URL, configuration: Configuration = Configuration()) throws {
        self.directory = directory.standardizedFileURL
        self.configuration = configuration
        let path = self.directory.path
        // POSIX, not FileManager: a failure is a typed error with errno, never an NSError dump.
        try DiskFileIO.createDirectory(path)
        try DiskFileIO.checkWritable(path)
        self.files = DiskCacheDirectory(path: path)
        self.lock = try DirectoryLock(lockFile: path + "/" + DiskCacheNaming.lockFileName, state: DiskCacheState())
        try sweep()
    }

    // MARK: - Reading

    /// The entry for `key`, or nil on a miss. A hit records the access (for LRU eviction).
    /// An entry whose payload disagrees with its sidecar (corrupt, truncated, or a crash
    /// leftover) is removed and reported as a miss.
    public func entry(forKey key: String) -> Entry? {
        let hash = DiskCacheNaming.hash(forKey: key)
        // A second look only when another writer replaced the entry between check and stamp.
        for _ in 0..<2 {
            switch lookUp(hash: hash, key: key) {
            case .miss: return nil
            case .hit(let sidecar):
                if let entry = recordAccess(hash: hash, key: key, sidecar: sidecar) { return entry }
            case .suspect: return nil
            }
        }
        return nil
    }

    /// `inspect`, and when that finds something inconsistent, the same under the lock, where a
    /// publish cannot be half done: still inconsistent there means corrupt, and it is removed.
    private func lookUp(hash: String, key: String) -> Inspection {
        switch (try? inspect(hash: hash, key: key)) ?? .suspect {
        case .miss:
            return .miss
        case .hit(let sidecar):
            return .hit(sidecar)
        case .suspect:
            // Possibly a writer mid-publish: look again under the lock before judging.
            let verdict = try? lock.withLock { state, session -> DiskCacheSidecar? in
                switch try inspect(hash: hash, key: key) {
                case .hit(let sidecar): return sidecar
                case .miss: return nil
                case .suspect:
                    session.didChangeDirectory = try files.removeEntry(hash)
                    state.index[hash] = nil
                    return nil
                }
            }
            guard let sidecar = verdict ?? nil else { return .miss }
            return .hit(sidecar)
        }
    }

    /// Total bytes held (payloads plus sidecars), from the directory as of now (0 when the
    /// directory cannot be read).
    public var totalSize: Int {
        (try? lock.withLock { state, session in
            try synchronize(&state, session)
            return state.index.totalSize
        }) ?? 0
    }

    /// Entries held, from the directory as of now (0 when the directory cannot be read).
    public var entryCount: Int {
        (try? lock.withLock { state, session in
            try synchronize(&state, session)
            return state.index.items.count
        }) ?? 0
    }

    // MARK: - Removing

    /// Removes the entry for `key`, e.g. after it failed to decode (CACHE-4).
    public func removeEntry(forKey key: String) throws {
        let hash = DiskCacheNaming.hash(forKey: key)
        try lock.withLock { state, session in
            // No re-listing needed: the index stays marked stale if it already was.
            if try files.removeEntry(hash) { session.didChangeDirectory = true }
            state.index[hash] = nil
        }
    }

    /// Removes every entry. Temporary files inside the grace period (writes in flight) stay.
    public func removeAll() throws {
        try lock.withLock { state, session in
            for name in try DiskFileIO.listDirectory(files.path) {
                switch DiskCacheNaming.classify(name) {
                case .payload, .sidecar:
                    session.didChangeDirectory = try DiskFileIO.remove(files.path + "/" + name) || session.didChangeDirectory
                case .temporary, .other:
                    continue
                }
            }
            try sweep(&state, &session)
        }
    }

    /// Runs a full sweep now: removes old temporary files, orphan sidecars and entries whose
    /// payload disagrees with its sidecar, and rebuilds the index. Cost: one `lstat` per file and
    /// one small read per entry.
    public func sweep() throws {
        try lock.withLock { state, session in try sweep(&state, &session) }
    }

    // MARK: - Internals shared with the writer

    /// Rebuilds the index from the directory if another writer changed it since we last looked.
    func synchronize(_ state: inout DiskCacheState, _ session: DirectoryLock<DiskCacheState>.Session) throws {
        guard state.syncedGeneration != session.generation else { return }
        let (index, _) = try files.scan(validate: false, now: configuration.now(),
                                        grace: configuration.temporaryFileGracePeriod)
        // Orphans removed by a plain listing are crash leftovers; removing them changes no
        // live entry, so the generation need not move for them.
        state.index = index
        state.syncedGeneration = session.generation
    }

    func sweep(_ state: inout DiskCacheState, _ session: inout DirectoryLock<DiskCacheState>.Session) throws {
        let now = configuration.now()
        let (index, removedAny) = try files.scan(validate: true, now: now,
                                                 grace: configuration.temporaryFileGracePeriod)
        state.index = index
        state.syncedGeneration = session.generation
        state.lastSweep = now
        if removedAny { session.didChangeDirectory = true }
        if try files.evict(&state.index, toSize: configuration.sizeLimit, sparing: nil) > 0 {
            session.didChangeDirectory = true
        }
    }

    enum Inspection {
        case miss
        case hit(DiskCacheSidecar)
        /// Something is there but not a consistent entry.
        case suspect
    }

    /// Reads the sidecar and checks it against the payload, without the lock.
    func inspect(hash: String, key: String) throws -> Inspection {
        let data = try DiskFileIO.readSmallFile(files.sidecarPath(hash))
        let payload = try DiskFileIO.status(files.payloadPath(hash))
        if data == nil && payload == nil { return .miss }
        guard let data, let sidecar = DiskCacheSidecar.decode(data), sidecar.key == key,
              let payload, sidecar.describes(payload)
        else { return .suspect }
        return .hit(sidecar)
    }

    /// Stamps the access on the payload and makes the entry; nil when the payload checked a
    /// moment ago has since been evicted or replaced.
    private func recordAccess(hash: String, key: String, sidecar: DiskCacheSidecar) -> Entry? {
        let path = files.payloadPath(hash)
        guard (try? DiskFileIO.setModificationTime(path: path, configuration.now())) == true,
              let payload = try? DiskFileIO.status(path), sidecar.describes(payload)
        else { return nil }
        return Entry(key: key, url: URL(fileURLWithPath: path), byteCount: sidecar.byteCount,
                     metadata: sidecar.metadata, storedAt: sidecar.storedDate)
    }
}
