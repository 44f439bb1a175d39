import Foundation

/// A memory cache probe whose one action, `trim(toCost:)`, is recorded; reads pass through.
@MainActor
final class RecordingMemoryCacheProbe: MemoryCacheProbe {
    private let inner: any MemoryCacheProbe
    private let label: String
    private let log: StepLog

    init(_ inner: any MemoryCacheProbe, label: String, log: StepLog) {
        self.inner = inner
        self.label = label
        self.log = log
    }

    var totalCost: Int { get async { await inner.totalCost } }
    var costLimit: Int { get async { await inner.costLimit } }
    func contains(_ source: ConformanceSource) async -> Bool { await inner.contains(source) }

    func trim(toCost cost: Int) async {
        await inner.trim(toCost: cost)
        log.record("\(label): memory cache trimmed to cost \(cost) → holds \(await inner.totalCost)")
    }
}

/// A disk cache probe whose actions (corrupting an entry, simulating a crash while storing)
/// are recorded; reads pass through.
@MainActor
final class RecordingDiskCacheProbe: DiskCacheProbe {
    private let inner: any DiskCacheProbe
    private let label: String
    private let log: StepLog

    init(_ inner: any DiskCacheProbe, label: String, log: StepLog) {
        self.inner = inner
        self.label = label
        self.log = log
    }

    var totalSize: Int { get async { await inner.totalSize } }
    var sizeLimit: Int { get async { await inner.sizeLimit } }
    var entryCount: Int { get async { await inner.entryCount } }

    func corruptEntry(for url: URL) async throws -> Bool {
        let found = try await inner.corruptEntry(for: url)
        log.record("\(label): disk entry of \(url.path) corrupted" + (found ? "" : " (there was none)"))
        return found
    }

    func simulateCrashWhileStoring(_ bytes: Data, for url: URL, writtenBytes: Int) async throws {
        try await inner.simulateCrashWhileStoring(bytes, for: url, writtenBytes: writtenBytes)
        log.record("\(label): crash simulated while storing \(url.path) after \(writtenBytes) of \(bytes.count) bytes")
    }
}
