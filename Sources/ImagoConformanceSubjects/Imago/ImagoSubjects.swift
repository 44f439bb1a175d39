import Imago
import ImagoConformance

/// Imago's configurations as conformance subjects: {data task, download-to-file, decode while
/// streaming} × {no cache, memory only, disk only, memory + disk}.
public enum ImagoSubjects {
    public enum Caches: String, CaseIterable, Sendable {
        case none, memory, disk, memoryAndDisk = "memory+disk"

        var memory: Bool { self == .memory || self == .memoryAndDisk }
        var disk: Bool { self == .disk || self == .memoryAndDisk }
    }

    /// All twelve configurations, named `imago-<data|file|stream>-<caches>`.
    public static var all: [ConformanceSubject] {
        LoaderContext.FetchStrategy.allCases.flatMap { strategy in
            Caches.allCases.map { subject(strategy: strategy, caches: $0) }
        }
    }

    public static func subject(strategy: LoaderContext.FetchStrategy, caches: Caches) -> ConformanceSubject {
        var capabilities: LoaderCapabilities = [.retries, .injectableClock, .progress, .priorities,
                                                .selectableFetchStrategy, .targetSize]
        if caches.memory { capabilities.formUnion([.memoryCache, .memoryPressure]) }
        if caches.disk { capabilities.formUnion([.diskCache, .httpFreshness]) }
        // A strategy's own capabilities go with the configuration that uses it by default (as
        // `.downloadsToFile` does), so FETCH-2, FETCH-4 and PREVIEW-1 run once per cache
        // configuration, and FETCH-3 compares all three strategies on the streaming subjects.
        switch strategy {
        case .data: break
        case .file:
            // Only a download to file keeps a partial body to continue (`ResumableDownload`): for
            // the fetch's retries without a disk cache, and across loads with one.
            capabilities.formUnion([.downloadsToFile, .resumableDownloads])
        case .stream: capabilities.formUnion([.decodesWhileStreaming, .progressivePreviews])
        }
        return ConformanceSubject(name: "imago-\(strategy.rawValue)-\(caches.rawValue)", kind: .imago,
                                  capabilities: capabilities) { context in
            try ImagoLoader(context: context, defaultStrategy: strategy, caches: caches)
        }
    }
}
