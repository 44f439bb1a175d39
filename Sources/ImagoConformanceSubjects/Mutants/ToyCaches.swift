import Crypto
import Foundation
import Imago
import ImagoConformance

/// A decoded image as the toy keeps it: what the suite compares, and what it costs.
struct ToyImage: Sendable {
    let fingerprint: ImageFingerprint
    /// Where this copy came from (network or disk).
    var origin: ObservedOrigin = .network
    var cost: Int { fingerprint.width * fingerprint.height * 4 }
}

/// The toy's memory cache: Imago's LRU cache, or (mutant) a cost-ordered one.
@MainActor
protocol ToyMemoryCache: MemoryCacheProbe {
    func value(forKey key: String) -> ToyImage?
    func insert(_ image: ToyImage, forKey key: String)
    /// The cost held now, read synchronously by the toy's own pressure handler (the probe's
    /// `totalCost` is `async` for the checks).
    var costNow: Int { get }
    /// `trim(toCost:)`, synchronously, for the toy's own pressure handler.
    func trimNow(toCost cost: Int)
}

extension ToyMemoryCache {
    func trim(toCost cost: Int) { trimNow(toCost: cost) }
}

@MainActor
final class ToyLRUCache: ToyMemoryCache {
    private let cache: MemoryCache<String, ToyImage>

    init(context: LoaderContext) {
        var configuration = MemoryCache<String, ToyImage>.Configuration()
        if let limit = context.memoryCostLimit { configuration.costLimit = limit }
        if let limit = context.memoryEntryCostLimit { configuration.entryCostLimit = limit }
        cache = MemoryCache(configuration: configuration)
    }

    func value(forKey key: String) -> ToyImage? { cache.value(forKey: key) }
    func insert(_ image: ToyImage, forKey key: String) { _ = cache.insert(image, forKey: key, cost: image.cost) }
    var totalCost: Int { cache.totalCost }
    var costNow: Int { cache.totalCost }
    var costLimit: Int { cache.configuration.costLimit }
    func contains(_ source: ConformanceSource) -> Bool { cache.contains(ToyLoader.key(source)) }
    func trimNow(toCost cost: Int) { cache.trim(toCost: cost) }
}

/// Mutant: over the limit, the most expensive entries go first, however recently used.
@MainActor
final class CostOrderedCache: ToyMemoryCache {
    private var entries: [String: ToyImage] = [:]
    let costLimit: Int
    private let entryCostLimit: Int

    init(context: LoaderContext) {
        costLimit = context.memoryCostLimit ?? 64 << 20
        entryCostLimit = context.memoryEntryCostLimit ?? costLimit / 4
    }

    var totalCost: Int { costNow }
    var costNow: Int { entries.values.reduce(0) { $0 + $1.cost } }
    func value(forKey key: String) -> ToyImage? { entries[key] }
    func contains(_ source: ConformanceSource) -> Bool { entries[ToyLoader.key(source)] != nil }

    func insert(_ image: ToyImage, forKey key: String) {
        guard image.cost <= entryCostLimit else { return }
        entries[key] = image
        trimNow(toCost: costLimit)
    }

    func trimNow(toCost cost: Int) {
        while costNow > cost, let largest = entries.max(by: { $0.value.cost < $1.value.cost })?.key {
            entries[largest] = nil
        }
    }
}

/// The toy's disk cache: Imago's atomic one, or (mutant) one that writes entries in place.
@MainActor
protocol ToyDiskCache: DiskCacheProbe {
    func read(_ url: URL) -> Data?
    func write(_ data: Data, for url: URL)
    func remove(_ url: URL)
}

@MainActor
final class ToyAtomicDiskCache: ToyDiskCache {
    private let cache: DiskCache
    private let probe: ImagoDiskProbe

    init(context: LoaderContext) throws {
        var configuration = DiskCache.Configuration()
        if let limit = context.diskSizeLimit { configuration.sizeLimit = limit }
        configuration.synchronizesWrites = false
        cache = try DiskCache(directory: context.cacheDirectory, configuration: configuration)
        probe = ImagoDiskProbe(cache)
    }

    private func key(_ url: URL) -> String { ImageSource.url(url).identity }
    func read(_ url: URL) -> Data? { try? cache.entry(forKey: key(url))?.data() }
    func write(_ data: Data, for url: URL) { _ = try? cache.store(data, forKey: key(url)) }
    func remove(_ url: URL) { try? cache.removeEntry(forKey: key(url)) }
    var totalSize: Int { probe.totalSize }
    var sizeLimit: Int { probe.sizeLimit }
    var entryCount: Int { probe.entryCount }
    func corruptEntry(for url: URL) throws -> Bool { try probe.corruptEntry(for: url) }
    func simulateCrashWhileStoring(_ bytes: Data, for url: URL, writtenBytes: Int) throws {
        try probe.simulateCrashWhileStoring(bytes, for: url, writtenBytes: writtenBytes)
    }
}

/// Mutant: the blog design. Files named by a hash of the URL, written in place chunk by chunk;
/// whatever is at the path is served.
@MainActor
final class InPlaceDiskCache: ToyDiskCache {
    private let directory: URL
    let sizeLimit: Int

    init(context: LoaderContext) {
        directory = context.cacheDirectory
        sizeLimit = context.diskSizeLimit ?? 256 << 20
    }

    private func path(_ url: URL) -> URL {
        directory.appendingPathComponent(SHA256.hash(data: Data(url.absoluteString.utf8)).map { String(format: "%02x", $0) }.joined())
    }

    private var files: [(url: URL, size: Int, modified: Date)] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let urls = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)) ?? []
        return urls.compactMap { url in
            guard let values = try? url.resourceValues(forKeys: Set(keys)) else { return nil }
            return (url, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }
    }

    func read(_ url: URL) -> Data? { try? Data(contentsOf: path(url)) }
    func remove(_ url: URL) { try? FileManager.default.removeItem(at: path(url)) }

    func write(_ data: Data, for url: URL) {
        writePrefix(data, count: data.count, to: path(url))
        for file in files.sorted(by: { $0.modified < $1.modified }) where totalSize > sizeLimit {
            try? FileManager.default.removeItem(at: file.url)
        }
    }

    private func writePrefix(_ data: Data, count: Int, to file: URL) {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        guard let handle = try? FileHandle(forWritingTo: file) else { return }
        defer { try? handle.close() }
        var offset = 0
        while offset < count {
            let end = min(offset + 16_384, count)
            handle.write(data.subdata(in: offset..<end))
            offset = end
        }
    }

    var totalSize: Int { files.reduce(0) { $0 + $1.size } }
    var entryCount: Int { files.count }

    func corruptEntry(for url: URL) throws -> Bool {
        guard let data = read(url) else { return false }
        try Data(repeating: 0x5A, count: data.count).write(to: path(url))
        return true
    }

    func simulateCrashWhileStoring(_ bytes: Data, for url: URL, writtenBytes: Int) throws {
        writePrefix(bytes, count: writtenBytes, to: path(url))
    }
}
