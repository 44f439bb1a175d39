import Foundation
import Imago

/// The generation-2 disk-cache bugs: caches around Imago's `DiskCache`, given to the pipeline
/// as an app gives its own (`CacheMutants` asks here first). Nil when the bug is not one of these.
enum BlindDiskCaches {
    static func diskCache(directory: URL, _ configuration: DiskCache.Configuration,
                          for mutant: Mutant?) throws -> (any ProbedDiskCache)? {
        switch mutant {
        case .diskKeyDropsQuery?: QuerylessKeyDiskCache(try DiskCache(directory: directory, configuration: configuration))
        case .diskEvictsBeforeWrite?: try RoomFirstDiskCache(directory: directory, configuration: configuration)
        case .http304RefreshIgnored?: RefreshIgnoringDiskCache(try DiskCache(directory: directory, configuration: configuration))
        case .cacheDiskHitNotPromoted?:
            ReadRecordingDiskCache(try DiskCache(directory: directory, configuration: configuration),
                                   reads: DiskReads.take() ?? DiskReads())
        default: nil
        }
    }
}

/// `Mutant.diskKeyDropsQuery`: keys are URLs without their query ("?w=200", a CDN signature),
/// so two URLs that differ only there share one entry.
final class QuerylessKeyDiskCache: ForwardingDiskCache, @unchecked Sendable {
    private static func queryless(_ key: String) -> String {
        key.firstIndex(of: "?").map { String(key[..<$0]) } ?? key
    }

    override func entry(forKey key: String) -> DiskCache.Entry? { base.entry(forKey: Self.queryless(key)) }
    override func store(_ data: Data, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        try base.store(data, forKey: Self.queryless(key), metadata: metadata)
    }
    override func store(fileAt url: URL, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        try base.store(fileAt: url, forKey: Self.queryless(key), metadata: metadata)
    }
    override func refresh(forKey key: String, metadata: DiskCache.Metadata, revalidated: DiskCache.Metadata?) throws -> Bool {
        try base.refresh(forKey: Self.queryless(key), metadata: metadata, revalidated: revalidated)
    }
    override func removeEntry(forKey key: String) throws { try base.removeEntry(forKey: Self.queryless(key)) }
    override func partialDownloadFiles(forKey key: String) -> DiskCache.PartialDownloadFiles {
        base.partialDownloadFiles(forKey: Self.queryless(key))
    }
}

/// `Mutant.diskEvictsBeforeWrite`: before each write the cache sweeps itself back within its
/// limit, then writes, so each write may leave it over the limit by what it wrote. Two
/// `DiskCache`s on one directory, as `SweepOnlyEvictionDiskCache`: the forwarded one, with no
/// limit, stores; `sweeper`, at the limit asked for, sweeps.
final class RoomFirstDiskCache: ForwardingDiskCache, @unchecked Sendable {
    private let sweeper: DiskCache

    init(directory: URL, configuration: DiskCache.Configuration) throws {
        sweeper = try DiskCache(directory: directory, configuration: configuration)
        var unbounded = configuration
        unbounded.sizeLimit = .max
        super.init(try DiskCache(directory: directory, configuration: unbounded))
    }

    override var sizeLimit: Int { sweeper.sizeLimit }

    override func store(_ data: Data, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        guard data.count < sizeLimit else { return false }
        try? sweeper.sweep()
        return try base.store(data, forKey: key, metadata: metadata)
    }

    override func store(fileAt url: URL, forKey key: String, metadata: DiskCache.Metadata) throws -> Bool {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        guard size < sizeLimit else { return false }
        try? sweeper.sweep()
        return try base.store(fileAt: url, forKey: key, metadata: metadata)
    }
}

/// `Mutant.http304RefreshIgnored`: a 304 is taken as "use what is stored" and the entry is left
/// as it was: its headers and time of receipt are not updated, so it stays stale.
final class RefreshIgnoringDiskCache: ForwardingDiskCache, @unchecked Sendable {
    override func refresh(forKey key: String, metadata: DiskCache.Metadata, revalidated: DiskCache.Metadata?) throws -> Bool {
        base.entry(forKey: key) != nil
    }
}

/// `Mutant.cacheDiskHitNotPromoted`'s disk side: Imago's cache, recording each key it answers
/// with an entry, for the memory cache (`NetworkOnlyMemoryCache`) to refuse.
final class ReadRecordingDiskCache: ForwardingDiskCache, @unchecked Sendable {
    private let reads: DiskReads

    init(_ base: DiskCache, reads: DiskReads) {
        self.reads = reads
        super.init(base)
    }

    override func entry(forKey key: String) -> DiskCache.Entry? {
        let entry = base.entry(forKey: key)
        if entry != nil { reads.record(key) }
        return entry
    }
}
