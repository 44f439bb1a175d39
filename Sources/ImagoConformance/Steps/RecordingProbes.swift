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

    var totalCost: Int { inner.totalCost }
    var costLimit: Int { inner.costLimit }
    func contains(_ source: ConformanceSource) -> Bool { inner.contains(source) }

    func trim(toCost cost: Int) {
        inner.trim(toCost: cost)
        log.record("\(label): memory cache trimmed to cost \(cost) → holds \(inner.totalCost)")
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

    var totalSize: Int { inner.totalSize }
    var sizeLimit: Int { inner.sizeLimit }
    var entryCount: Int { inner.entryCount }

    func corruptEntry(for url: URL) throws -> Bool {
        let found = try inner.corruptEntry(for: url)
        log.record("\(label): disk entry of \(url.path) corrupted" + (found ? "" : " (there was none)"))
        return found
    }

    func simulateCrashWhileStoring(_ bytes: Data, for url: URL, writtenBytes: Int) throws {
        try inner.simulateCrashWhileStoring(bytes, for: url, writtenBytes: writtenBytes)
        log.record("\(label): crash simulated while storing \(url.path) after \(writtenBytes) of \(bytes.count) bytes")
    }
}
