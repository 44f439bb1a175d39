import Foundation

/// One replay of a cache sequence (MODEL-MEMORY, MODEL-DISK): a fresh context with the
/// sequence's limits, a loader built on it, and the reference caches the loader's caches are held
/// to, operation by operation. After each operation the loader is compared with the references
/// (`CacheSequenceReplay+Judging.swift`); the first difference is the replay's divergence.
@MainActor
final class CacheSequenceReplay {
    let run: CheckRun
    /// The sequence's images, by number: four 40×40, two 48×48, a 64×48 and a 96×96, so decoded
    /// sizes (6400 to 36864 bytes) and payloads (4 to 21 KB) differ.
    let pool: [ConformanceImage]
    let sources: [ConformanceSource]
    let limits: CacheLimits
    var loader: any LoaderUnderTest
    /// The reference caches, for the caches the subject declares.
    var memory: ReferenceMemoryCache?
    var disk: ReferenceDiskCache?
    /// Each image's memory cost as the loader was first seen to charge it (checked against its
    /// decoded size), so a loader that pads rows is modelled at its own cost.
    var learnedCosts: [Int: Int] = [:]
    /// Requests the server must have seen, by image.
    var expectedRequests: [Int: Int] = [:]
    /// Images loaded or corrupted so far: the ones whose memory entries are compared.
    var touched: [Int] = []
    /// The operation being replayed, from 1.
    var number = 0

    /// The pool's images (`ConformanceImages`' named ones and the first series).
    static func pool(_ images: ConformanceImages) throws -> [ConformanceImage] {
        try (0..<4).map { (index) throws(ShippedImageError) in try images.series(index) }
            + [images.tiny1, images.tiny2, images.small, images.large]
    }

    /// A replay of a sequence beginning with `operations.first` (or the fallback limits) in a
    /// fresh context, its routes named apart by `trial`.
    init(run: CheckRun, pool: [ConformanceImage], operations: [CacheOperation], trial: Int) throws {
        self.run = run
        self.pool = pool
        var limits = CacheLimits.fallback
        if case .begin(let chosen)? = operations.first { limits = chosen }
        self.limits = limits
        var context = try run.newContext()
        context.memoryCostLimit = limits.memoryCost
        context.memoryEntryCostLimit = limits.memoryEntryCost
        context.diskSizeLimit = limits.diskSize
        run.context = context
        sources = pool.enumerated().map { run.route("t\(trial)-image-\($0.offset).png", $0.element) }
        let capabilities = run.subject.capabilities
        if capabilities.contains(.memoryCache) {
            memory = ReferenceMemoryCache(costLimit: limits.memoryCost, entryCostLimit: limits.memoryEntryCost)
        }
        if capabilities.contains(.diskCache) {
            let payloads = Dictionary(uniqueKeysWithValues: pool.enumerated().map { ($0.offset, $0.element.bytes.count) })
            disk = ReferenceDiskCache(sizeLimit: limits.diskSize, payloadSizes: payloads)
        }
        loader = try run.loader()
    }

    /// Runs `operations` in order; the first divergence from the references, or nil.
    func replay(_ operations: [CacheOperation]) async throws -> Divergence? {
        if memory != nil, loader.memoryCache == nil {
            throw CheckFailed(reason: "declares .memoryCache but has no probe: return a MemoryCacheProbe from LoaderUnderTest.memoryCache, or do not declare .memoryCache")
        }
        if disk != nil, loader.diskCache == nil {
            throw CheckFailed(reason: "declares .diskCache but has no probe: return a DiskCacheProbe from LoaderUnderTest.diskCache, or do not declare .diskCache")
        }
        for (index, operation) in operations.enumerated() {
            number = index + 1
            run.step("operation \(number): \(operation)")
            if let divergence = try await perform(operation) { return divergence }
        }
        return nil
    }

    private func perform(_ operation: CacheOperation) async throws -> Divergence? {
        switch operation {
        case .begin:
            return nil
        case .load(let image):
            return try await load(image)
        case .trim(let percent):
            guard var reference = memory, let probe = loader.memoryCache else { return nil }
            let target = reference.totalCost * percent / 100
            await probe.trim(toCost: target)
            _ = reference.trim(toCost: target)
            memory = reference
            return await compareMemory(rule: "MEM-3", after: "trim(toCost: \(target))")
        case .restart:
            loader = try run.loader()
            memory?.removeAll()
            if let divergence = await compareMemory(rule: "MEM-1", after: "the restart") { return divergence }
            return await compareDisk(after: "the restart")
        case .corrupt(let image):
            guard let reference = disk, let probe = loader.diskCache else { return nil }
            let entry = reference.entry(image)
            let corrupted = try await probe.corruptEntry(for: sources[image].url)
            if entry.isCertain, !corrupted {
                return divergence(entry == .held(repaired: true) ? "CACHE-4" : "DISK-4",
                                  "image \(image)'s entry on disk (\(entry)) to corrupt",
                                  "corruptEntry(for:) found none: the entry was lost although the most recent entries that fit must stay")
            }
            if corrupted { disk?.corrupted(image) } else if entry.isPossible { disk?.gone(image) }
            if !touched.contains(image) { touched.append(image) }
            return await compareDisk(after: "corrupting image \(image)")
        }
    }

    /// Loads `image` to its terminal phase and judges the origin, the requests and both caches.
    private func load(_ image: Int) async throws -> Divergence? {
        let inMemory = memory?.contains(image) == true
        let onDisk = disk?.entry(image)
        let expected: ObservedOrigin? = inMemory ? .memory : Self.origin(onDisk)
        let costBefore = await loader.memoryCache?.totalCost ?? 0
        let (model, _) = try await run.loadToEnd(loader, sources[image], "operation \(number), image \(image)")
        if !touched.contains(image) { touched.append(image) }
        guard case .success(let origin, let fingerprint) = model.phase, fingerprint == pool[image].fingerprint else {
            return divergence(Self.rule(expected: expected, disk: onDisk), "success showing image \(image) (\(pool[image].fingerprint))",
                              "\(model.phase)")
        }
        if let wrong = judgeOrigin(origin, expected: expected, disk: onDisk, image: image) { return wrong }
        if origin == .network { expectedRequests[image, default: 0] += 1 }
        let requests = run.requests(sources[image])
        if requests != expectedRequests[image, default: 0] {
            return divergence(origin == .disk ? "CACHE-2" : "CACHE-3",
                              "\(expectedRequests[image, default: 0]) requests for image \(image) in all (origin \(origin.rawValue))",
                              "\(requests) requests")
        }
        if disk != nil {
            if origin == .disk { disk?.read(image) }
            if origin == .network {
                if onDisk == .maybe { disk?.gone(image) }
                disk?.stored(image)
            }
        }
        if let wrong = await updateMemory(image, origin: origin, costBefore: costBefore) { return wrong }
        return await compareDisk(after: "loading image \(image)")
    }

    /// Where a load of an entry the memory cache does not hold must come from; nil: either disk
    /// or network (an entry the eviction order may have dropped).
    static func origin(_ entry: ReferenceDiskCache.Entry?) -> ObservedOrigin? {
        switch entry {
        case nil, .absent?, .corrupt?, .maybeCorrupt?: .network
        case .held?: .disk
        case .maybe?: nil
        }
    }

    /// The rule a load breaks by ending other than expected.
    static func rule(expected: ObservedOrigin?, disk: ReferenceDiskCache.Entry?) -> String {
        switch (expected, disk) {
        case (.memory?, _): "CACHE-1"
        case (_, .corrupt?), (_, .maybeCorrupt?), (_, .held(repaired: true)?): "CACHE-4"
        case (.disk?, _): "CACHE-2"
        default: "CACHE-3"
        }
    }

    func divergence(_ rule: String, _ expected: String, _ observed: String) -> Divergence {
        Divergence(rule: rule, operation: number, expected: expected, observed: observed)
    }
}
