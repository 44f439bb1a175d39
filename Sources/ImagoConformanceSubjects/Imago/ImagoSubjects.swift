import Imago
import ImagoConformance

/// Imago's configurations as conformance subjects: {data task, download-to-file} ×
/// {no cache, memory only, disk only, memory + disk}.
public enum ImagoSubjects {
    public enum Caches: String, CaseIterable, Sendable {
        case none, memory, disk, memoryAndDisk = "memory+disk"

        var memory: Bool { self == .memory || self == .memoryAndDisk }
        var disk: Bool { self == .disk || self == .memoryAndDisk }
    }

    /// All eight configurations, named `imago-<data|file>-<caches>`.
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
        if strategy == .file { capabilities.insert(.downloadsToFile) }
        return ConformanceSubject(name: "imago-\(strategy.rawValue)-\(caches.rawValue)", kind: .imago,
                                  capabilities: capabilities) { context in
            try ImagoLoader(context: context, defaultStrategy: strategy, caches: caches)
        }
    }
}
