import Foundation
import Imago

/// A memory cache the adapter can give a pipeline and also read through its probe
/// (`ImagoMemoryProbe`): what the pipeline needs (`ImageMemoryCaching`) plus what the MEM checks
/// look at, which the pipeline itself never asks. `MemoryCache` is one; so are the harness's
/// planted memory-cache bugs (`CacheMutants`), which the checks must see as the pipeline does.
protocol ProbedMemoryCache: ImageMemoryCaching {
    /// The cost limit the cache was asked for.
    var costLimit: Int { get }
    /// Whether `key` is held, without counting as a use.
    func contains(_ key: ImageRequestKey) -> Bool
}

extension MemoryCache: ProbedMemoryCache where Key == ImageRequestKey, Value == DecodedImage {
    var costLimit: Int { configuration.costLimit }
}

/// The same for the disk cache and `ImagoDiskProbe`: the DISK and CACHE checks also read the
/// directory's totals and write crash leftovers into it.
protocol ProbedDiskCache: ImageDiskCaching {
    /// Where the entries live.
    var directory: URL { get }
    /// Bytes held (payloads plus metadata), from the directory as of now.
    var totalSize: Int { get }
    /// Entries held, from the directory as of now.
    var entryCount: Int { get }
}

extension DiskCache: ProbedDiskCache {}
