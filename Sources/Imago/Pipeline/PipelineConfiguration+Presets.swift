import Foundation

/// The common setups, each a starting point to adjust in place. They differ from the default
/// only where the setup calls for it, and say why.
extension ImagePipeline.Configuration {
    /// No disk cache: every knob at its default (`Configuration()`). Bodies arrive in memory
    /// (`.data`), the fewest copies for images of ordinary size.
    public static var withoutDiskCache: Self { Self() }

    /// A disk cache in `directory` (created if needed, `sizeLimit` bytes, default 256 MiB), and
    /// bodies downloaded to file (`.file`): a download lands in the cache's directory and is
    /// renamed into it, the whole body is never held in memory, and one that breaks mid-way is
    /// resumed with `Range` by the retry or the next load. What `imago load --cache-dir` uses.
    public static func withDiskCache(at directory: URL, sizeLimit: Int = 256 << 20) throws -> Self {
        let cache = try DiskCache(directory: directory, configuration: DiskCache.Configuration(sizeLimit: sizeLimit))
        return Self(dependencies: Dependencies(diskCache: cache), network: Network(fetchStrategy: .file))
    }

    /// A container with a small memory limit (a few hundred MiB) and few processors. The memory
    /// cache, the decode budget and the pressure response already scale with the cgroup's limit
    /// (`MemoryBudgets`); on top of them:
    /// - bodies are decoded as they arrive (`.stream`): no copy of the compressed body in memory
    ///   and no temporary file, which on a tmpfs `/tmp` would count against the same limit (with
    ///   `diskCache`, the bytes also go to its directory as they arrive);
    /// - at most 2 decodes at once (fewer with fewer processors): each one's working memory
    ///   comes on top of the pixels it makes, and more decodes than processors only add that;
    /// - at most 4 fetches at once, over HTTP/1.1 and HTTP/2 alike: each holds connection
    ///   buffers and, streaming, a decoder.
    public static func constrainedContainer(diskCache: DiskCache? = nil) -> Self {
        Self(dependencies: Dependencies(diskCache: diskCache),
             network: Network(fetchStrategy: .stream),
             limits: Limits(maxConcurrentFetches: 4, maxConcurrentStreams: 4,
                            maxConcurrentDecodes: min(2, ProcessInfo.processInfo.activeProcessorCount)))
    }
}
