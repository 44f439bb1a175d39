import Foundation
import Imago
import ImagoConformance

/// Imago's phases and errors in the suite's vocabulary.
enum ImagoPhases {
    static func observed(_ phase: ImagePhase) -> ObservedPhase {
        switch phase {
        case .empty: .empty
        case .loading(let progress, let previous, let preview):
            .loading(received: progress?.received, expected: progress?.expected, previous: previous.map(fingerprint),
                     preview: preview.map(observed))
        case .success(let response): .success(origin: ObservedOrigin(rawValue: response.origin.rawValue) ?? .network,
                                              image: fingerprint(response.pixels))
        case .failure(let error): .failure(observed(error))
        }
    }

    /// A preview's detail (the scan or pass it shows) and pixel size; its pixels are not hashed
    /// (PREVIEW-1 judges order, rate and size, and hashing every preview would cost a decode's
    /// worth of work per scan).
    static func observed(_ preview: ImagePreview) -> ObservedPreview {
        ObservedPreview(detail: preview.detail, width: preview.pixels.width, height: preview.pixels.height)
    }

    static func observed(_ error: ImageLoadingError) -> ObservedFailure {
        switch error {
        case .missingSource: .missingSource
        case .cancelled, .fetch(.cancelled), .decoding(.cancelled): .cancelled
        case .fetch(.httpStatus(let code, _, _)): .httpStatus(code)
        case .fetch(.emptyData), .decoding(.empty): .emptyData
        case .fetch(let fetchError): .transport(fetchError.description)
        case .decoding(let decodeError): .decoding(decodeError.kind)
        case .provider(let message): .other(message)
        }
    }

    static func fingerprint(_ pixels: PixelBuffer) -> ImageFingerprint {
        ImageFingerprint(width: pixels.width, height: pixels.height, rgba: pixels.packedBytes())
    }
}

@MainActor
final class ImagoMemoryProbe: MemoryCacheProbe {
    let cache: any ProbedMemoryCache
    init(_ cache: any ProbedMemoryCache) { self.cache = cache }

    var totalCost: Int { cache.totalCost }
    var costLimit: Int { cache.costLimit }
    func contains(_ source: ConformanceSource) -> Bool { cache.contains(ImagoLoader.request(source).key) }
    func trim(toCost cost: Int) { cache.trim(toCost: cost) }
}

@MainActor
final class ImagoDiskProbe: DiskCacheProbe {
    let cache: any ProbedDiskCache
    init(_ cache: any ProbedDiskCache) { self.cache = cache }

    var totalSize: Int { cache.totalSize }
    var sizeLimit: Int { cache.sizeLimit }
    var entryCount: Int { cache.entryCount }

    func corruptEntry(for url: URL) throws -> Bool {
        guard let entry = cache.entry(forKey: ImageSource.url(url).identity) else { return false }
        try Data(repeating: 0x5A, count: entry.byteCount).write(to: entry.url)
        return true
    }

    /// Imago writes into `.tmp-<uuid>` in the cache directory and renames when complete, so a
    /// crash leaves a partial temporary file; dated an hour back (the helper's default), past the
    /// sweep's grace period.
    func simulateCrashWhileStoring(_ bytes: Data, for url: URL, writtenBytes: Int) throws {
        try CrashLeftovers.temporaryFileThenRename(
            of: bytes, writtenBytes: writtenBytes, temporary: cache.directory.appendingPathComponent(".tmp-\(UUID().uuidString)"))
    }
}
