@testable import Imago

/// The pipeline holds its caches as `any ImageMemoryCaching` / `any ImageDiskCaching`; the tests
/// that configure the built-in ones read what only those have (counts, totals, limits).
extension ImagePipeline.Configuration.Dependencies {
    /// The memory cache as the built-in `MemoryCache`; nil when there is none or it is another kind.
    var builtInMemoryCache: MemoryCache<ImageRequestKey, DecodedImage>? {
        memoryCache as? MemoryCache<ImageRequestKey, DecodedImage>
    }

    /// The disk cache as the built-in `DiskCache`; nil when there is none or it is another kind.
    var builtInDiskCache: DiskCache? { diskCache as? DiskCache }
}
