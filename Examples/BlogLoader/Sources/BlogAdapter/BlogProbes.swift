import BlogLoader
import Foundation
import ImagoConformance

/// The memory cache as the MEM rules inspect it.
@MainActor
public final class BlogMemoryProbe: MemoryCacheProbe {
    let cache: MemoryImageCache
    init(cache: MemoryImageCache) { self.cache = cache }

    public var totalCost: Int { cache.totalCost }
    public var costLimit: Int { cache.costLimit }
    public func contains(_ source: ConformanceSource) -> Bool { cache.contains(BlogLoaderAdapter.request(source).key) }
    public func trim(toCost cost: Int) { cache.trim(toCost: cost) }
}

/// The disk cache as the DISK rules inspect it.
@MainActor
public final class BlogDiskProbe: DiskCacheProbe {
    let cache: DiskImageCache
    init(cache: DiskImageCache) { self.cache = cache }

    public var totalSize: Int {
        cache.entries().reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
    }
    /// The blog loader has no disk size limit: the directory grows without bound.
    public var sizeLimit: Int { .max }
    public var entryCount: Int { cache.entries().count }

    public func corruptEntry(for url: URL) throws -> Bool {
        guard let stored = cache.data(for: url) else { return false }
        try Data(repeating: 0x5A, count: stored.count).write(to: cache.fileURL(for: url))
        return true
    }

    /// `DiskImageCache.store` writes `<hash>.tmp` and then renames it: a crash in between leaves
    /// the partial `.tmp` file, which `CrashLeftovers.temporaryFileThenRename` leaves.
    public func simulateCrashWhileStoring(_ bytes: Data, for url: URL, writtenBytes: Int) throws {
        try CrashLeftovers.temporaryFileThenRename(of: bytes, writtenBytes: writtenBytes,
                                                   temporary: cache.temporaryFileURL(for: url))
    }
}
