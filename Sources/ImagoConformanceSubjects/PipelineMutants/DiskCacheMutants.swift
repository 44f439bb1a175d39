import Foundation
import Imago
import Synchronization

/// Imago's `DiskCache`, every call handed on: each planted disk-cache bug below overrides the
/// decisions it gets wrong. `@unchecked Sendable`: its one stored property is a `let` of a
/// `Sendable` cache; it is not `final` only so that the bugs can subclass it.
class ForwardingDiskCache: ProbedDiskCache, @unchecked Sendable {
    let base: DiskCache

    init(_ base: DiskCache) { self.base = base }

    var directory: URL { base.directory }
    var sizeLimit: Int { base.sizeLimit }
    var totalSize: Int { base.totalSize }
    var entryCount: Int { base.entryCount }
    func entry(forKey key: String) -> DiskCache.Entry? { base.entry(forKey: key) }
    func store(_ data: Data, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        try base.store(data, forKey: key, metadata: metadata)
    }
    func store(fileAt url: URL, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        try base.store(fileAt: url, forKey: key, metadata: metadata)
    }
    func refresh(forKey key: String, metadata: DiskCache.Metadata, revalidated: DiskCache.Metadata?) throws -> Bool {
        try base.refresh(forKey: key, metadata: metadata, revalidated: revalidated)
    }
    func removeEntry(forKey key: String) throws { try base.removeEntry(forKey: key) }
    func makeTemporaryFileURL() -> URL { base.makeTemporaryFileURL() }
    func partialDownloadFiles(forKey key: String) -> DiskCache.PartialDownloadFiles {
        base.partialDownloadFiles(forKey: key)
    }
}

/// `Mutant.cacheCorruptEntryKept`: entries are taken for immutable (a cache keyed by URLs that
/// "never change"): an entry is never removed, and a store for a key that has one keeps the
/// first. A corrupt entry is then fetched around on every load, never repaired.
final class ImmutableEntriesDiskCache: ForwardingDiskCache, @unchecked Sendable {
    override func store(_ data: Data, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        if base.entry(forKey: key) != nil { return true }   // the first one stays
        return try base.store(data, forKey: key, metadata: metadata)
    }

    override func store(fileAt url: URL, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        guard base.entry(forKey: key) == nil else {
            try? FileManager.default.removeItem(at: url)   // taken, as a store that returns true takes it
            return true
        }
        return try base.store(fileAt: url, forKey: key, metadata: metadata)
    }

    override func removeEntry(forKey key: String) throws {}   // never
}

/// `Mutant.diskEvictsOnlyInSweep`: a write never evicts; the directory is brought back within
/// the size limit only by the periodic sweep (every `Configuration.sweepInterval`, default one
/// hour, and when the cache opens). Two `DiskCache`s on one directory (which Imago supports, as
/// for two processes): the forwarded one, whose limit is never reached, takes every store and
/// lookup; `sweeper`, at the limit asked for, only sweeps.
final class SweepOnlyEvictionDiskCache: ForwardingDiskCache, @unchecked Sendable {
    private let sweeper: DiskCache
    private let lastSweep: Mutex<Date>

    init(directory: URL, configuration: DiskCache.Configuration) throws {
        sweeper = try DiskCache(directory: directory, configuration: configuration)   // sweeps on opening
        var unbounded = configuration
        unbounded.sizeLimit = .max
        lastSweep = Mutex(configuration.now())
        super.init(try DiskCache(directory: directory, configuration: unbounded))
    }

    override var sizeLimit: Int { sweeper.sizeLimit }

    override func store(_ data: Data, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        // An entry too large on its own is still refused (the real check also counts its sidecar).
        guard data.count < sizeLimit else { return false }
        defer { sweepIfDue() }
        return try base.store(data, forKey: key, metadata: metadata)
    }

    override func store(fileAt url: URL, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        guard size < sizeLimit else { return false }
        defer { sweepIfDue() }
        return try base.store(fileAt: url, forKey: key, metadata: metadata)
    }

    /// The sweep a store runs when the last one is older than the sweep interval: the only place
    /// entries are evicted.
    private func sweepIfDue() {
        let now = sweeper.configuration.now()
        let due = lastSweep.withLock { last in
            guard Duration.seconds(now.timeIntervalSince(last)) >= sweeper.configuration.sweepInterval else { return false }
            last = now
            return true
        }
        if due { try? sweeper.sweep() }
    }
}
