import Foundation
import ImagoConformance
import ImagoConformanceSubjects
import Testing

/// The probes as an actor-based loader's adapter writes them: every reading and action hops to
/// another actor before it answers, so the checks must really await them. The toy loader behind
/// them must score exactly as it does with synchronous probes: the control conforms, a mutant is
/// still caught by its rules.
@MainActor
@Suite(.serialized) struct AsyncProbeTests {
    static let probedRules = ["INIT-1", "CACHE-1", "CACHE-2", "CACHE-4", "SHARE-1", "SHARE-2", "ERR-1", "ERR-3",
                              "MEM-1", "MEM-2", "MEM-3", "MEM-4", "DISK-1", "DISK-2", "DISK-3", "DISK-4"]

    static func behindAnActor(_ subject: ConformanceSubject) -> ConformanceSubject {
        ConformanceSubject(name: subject.name + "-async-probes", kind: subject.kind, capabilities: subject.capabilities,
                           expectedToFail: subject.expectedToFail) { context in
            ActorProbedLoader(try subject.makeLoader(context))
        }
    }

    @Test func theControlConformsThroughAsyncProbes() async throws {
        let report = try await ConformanceRunner().only(Self.probedRules).run(Self.behindAnActor(MutantSubjects.reference))
        #expect(report.failedRules.isEmpty, "\(report.results.filter(\.status.isFailing).map(\.evidence))")
        #expect(report.results.filter { $0.status == .pass }.count == Self.probedRules.count)
    }

    @Test(arguments: [MutantBug.costOrderedEviction, .nonAtomicDiskWrites, .storesBeforeValidation])
    func aMutantIsStillCaughtThroughAsyncProbes(_ bug: MutantBug) async throws {
        let subject = Self.behindAnActor(MutantSubjects.subject(bug))
        let report = try await ConformanceRunner().only(Self.probedRules).run(subject)
        #expect(!report.failedRules.isEmpty)
        #expect(report.meetsExpectation, "\(bug.rawValue) failed \(report.failedRules), expected \(bug.caughtBy)")
    }
}

/// Where the wrapped probes hop before answering: an actor of their own, as a loader's caches
/// behind an actor would be.
actor ProbeHop {
    func pass<Value: Sendable>(_ value: Value) -> Value { value }
}

/// A loader adapter whose counters and probes answer asynchronously, through `ProbeHop`.
@MainActor
final class ActorProbedLoader: LoaderUnderTest {
    let inner: any LoaderUnderTest
    let hop = ProbeHop()

    init(_ inner: any LoaderUnderTest) { self.inner = inner }

    func makeModel(source: ConformanceSource?) -> any ModelUnderTest { inner.makeModel(source: source) }
    var decodeCount: Int { get async { await hop.pass(await inner.decodeCount) } }
    var queuedFetchCount: Int? { get async { await hop.pass(await inner.queuedFetchCount) } }
    var memoryCache: (any MemoryCacheProbe)? { inner.memoryCache.map { ActorMemoryProbe($0, hop) } }
    var diskCache: (any DiskCacheProbe)? { inner.diskCache.map { ActorDiskProbe($0, hop) } }
    var memoryPressure: (any MemoryPressureProbe)? { inner.memoryPressure }
}

@MainActor
final class ActorMemoryProbe: MemoryCacheProbe {
    let inner: any MemoryCacheProbe
    let hop: ProbeHop
    init(_ inner: any MemoryCacheProbe, _ hop: ProbeHop) { (self.inner, self.hop) = (inner, hop) }

    var totalCost: Int { get async { await hop.pass(await inner.totalCost) } }
    var costLimit: Int { get async { await hop.pass(await inner.costLimit) } }
    func contains(_ source: ConformanceSource) async -> Bool { await hop.pass(await inner.contains(source)) }
    func trim(toCost cost: Int) async {
        await hop.pass(())
        await inner.trim(toCost: cost)
    }
}

@MainActor
final class ActorDiskProbe: DiskCacheProbe {
    let inner: any DiskCacheProbe
    let hop: ProbeHop
    init(_ inner: any DiskCacheProbe, _ hop: ProbeHop) { (self.inner, self.hop) = (inner, hop) }

    var totalSize: Int { get async { await hop.pass(await inner.totalSize) } }
    var sizeLimit: Int { get async { await hop.pass(await inner.sizeLimit) } }
    var entryCount: Int { get async { await hop.pass(await inner.entryCount) } }
    func corruptEntry(for url: URL) async throws -> Bool {
        await hop.pass(())
        return try await inner.corruptEntry(for: url)
    }
    func simulateCrashWhileStoring(_ bytes: Data, for url: URL, writtenBytes: Int) async throws {
        await hop.pass(())
        try await inner.simulateCrashWhileStoring(bytes, for: url, writtenBytes: writtenBytes)
    }
}
