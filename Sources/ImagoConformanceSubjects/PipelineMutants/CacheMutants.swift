import Foundation
@_spi(Testing) import Imago
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The planted cache bugs: each is a cache of the harness's own (often wrapping Imago's) that
/// makes the mistake, given to the pipeline through `ImageMemoryCaching` / `ImageDiskCaching`
/// exactly as an app would give its own cache, or, for the partial-download lock, the lock a
/// fetch takes (`Network.partialDownloadLocking`, SPI). `ImagoLoader` asks for them when it
/// builds its caches; the bug switched on for the process (`ActiveMutant.current`) decides which.
/// With no cache bug on, these are Imago's own caches, configured as asked.
enum CacheMutants {
    /// The memory cache for `configuration`, making `mutant`'s mistake if it is a memory-cache bug.
    static func memoryCache(_ configuration: MemoryCache<ImageRequestKey, DecodedImage>.Configuration,
                            for mutant: Mutant?) -> any ProbedMemoryCache {
        if let blind = BlindMemoryCaches.memoryCache(configuration, for: mutant) { return blind }
        return switch mutant {
        case .memInsertSkipsEviction?: DeferredEvictionMemoryCache(configuration)
        case .memEvictsBeforeRefusing?: RoomFirstMemoryCache(MemoryCache(configuration: configuration))
        case .memTrimsNewestFirst?: NewestFirstTrimMemoryCache(MemoryCache(configuration: configuration))
        case .sourceKeyIgnoresSize?: SourceKeyedMemoryCache(MemoryCache(configuration: configuration))
        default: MemoryCache(configuration: configuration)
        }
    }

    /// The disk cache in `directory`, making `mutant`'s mistake if it is a disk-cache bug.
    static func diskCache(directory: URL, _ configuration: DiskCache.Configuration,
                          for mutant: Mutant?) throws -> any ProbedDiskCache {
        if let blind = try BlindDiskCaches.diskCache(directory: directory, configuration, for: mutant) { return blind }
        switch mutant {
        case .diskSweepKeepsTemporaries?:
            // The sweep judges a temporary file by its age against the grace period; here no
            // file is ever old enough: the grace period is longer than the time since 1970.
            var kept = configuration
            kept.temporaryFileGracePeriod = .seconds(2 * Date().timeIntervalSince1970)
            return try DiskCache(directory: directory, configuration: kept)
        case .diskEvictsOnlyInSweep?:
            return try SweepOnlyEvictionDiskCache(directory: directory, configuration: configuration)
        case .cacheCorruptEntryKept?:
            return ImmutableEntriesDiskCache(try DiskCache(directory: directory, configuration: configuration))
        default:
            return try DiskCache(directory: directory, configuration: configuration)
        }
    }

    /// Puts `mutant`'s part into `configuration` when it is a bug of the partial-download lock.
    static func configure(_ configuration: inout ImagePipeline.Configuration, for mutant: Mutant?) {
        guard mutant == .diskPartialLockIgnored else { return }
        configuration.network.partialDownloadLocking = UncheckedPartialDownloadLocking()
    }
}

/// `Mutant.diskPartialLockIgnored`: the lock on a partial download is asked for and its answer
/// ignored, so a second fetch of a key writes the file the first one is still writing.
struct UncheckedPartialDownloadLocking: PartialDownloadLocking {
    func tryLock(_ descriptor: Int32) -> Bool {
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
        return true
    }
}
