import Foundation

/// The comparisons after each operation of a cache sequence: the origin a load published, the
/// memory cache (every touched image's entry and the total cost) and the disk cache (entries and
/// the bytes really in its directory) against the reference caches.
extension CacheSequenceReplay {
    /// The published origin against the references' expectation (nil: disk or network).
    func judgeOrigin(_ origin: ObservedOrigin, expected: ObservedOrigin?, disk entry: ReferenceDiskCache.Entry?,
                     image: Int) -> Divergence? {
        if let expected, origin == expected { return nil }
        if expected == nil, origin == .disk || origin == .network { return nil }
        let wanted = expected.map { "success(\($0.rawValue))" } ?? "success(disk) or success(network)"
        let why: String
        switch (expected, origin) {
        case (.memory?, _): why = "the memory cache holds image \(image), so a load must be a memory hit"
        case (.disk?, .network): why = entry == .held(repaired: true)
            ? "the entry fetched over a corrupt one must replace it and be served from disk"
            : "image \(image)'s entry is among the most recent that fit the disk limit, so it must be served without a request"
        case (_, .disk): why = entry == .corrupt || entry == .maybeCorrupt
            ? "a corrupt entry is a miss" : "image \(image) was never stored, or was seen gone"
        default: why = "the memory cache does not hold image \(image)"
        }
        return divergence(Self.rule(expected: expected, disk: entry), "\(wanted): \(why)", "success(\(origin.rawValue))")
    }

    /// Inserts or refreshes `image` in the reference memory cache after a load from `origin` and
    /// compares the loader's memory cache with it. A first insert teaches the image's cost: the
    /// loader's total after it, minus the total before, plus the model's costs of the entries that
    /// went; it must be the decoded size (width × height × 4, up to 64 bytes of padding a row).
    func updateMemory(_ image: Int, origin: ObservedOrigin, costBefore: Int) async -> Divergence? {
        guard var reference = memory, let probe = loader.memoryCache else { return nil }
        if origin == .memory {
            reference.hit(image)
            memory = reference
            return await compareMemory(rule: "MEM-1", after: "the memory hit on image \(image)")
        }
        let decoded = pool[image].decodedByteCount
        if learnedCosts[image] == nil, await probe.contains(sources[image]) {
            var gone: [Int] = []
            for other in reference.recency where other != image {
                if await !probe.contains(sources[other]) { gone.append(other) }
            }
            let cost = await probe.totalCost - costBefore + gone.reduce(0) { $0 + (reference.costs[$1] ?? 0) }
            let padding = pool[image].fingerprint.height * 64
            guard cost >= decoded, cost <= decoded + padding else {
                return divergence("MEM-1", "image \(image) to cost its decoded size \(decoded) (up to \(padding) bytes of row padding)",
                                  "it cost \(cost)")
            }
            learnedCosts[image] = cost
        }
        let cost = learnedCosts[image] ?? decoded
        let evicted = reference.insert(image, cost: cost)
        memory = reference
        let what = "inserting image \(image) (cost \(cost)\(evicted == nil ? ", over the per-entry limit \(reference.entryCostLimit)" : ""))"
        if evicted == nil { return await compareMemory(rule: "MEM-2", after: what) }
        if origin == .disk, await !probe.contains(sources[image]) {
            return divergence("CACHE-2", "image \(image), a disk hit, promoted to the memory cache", "the memory cache does not hold it")
        }
        return await compareMemory(rule: "MEM-1", after: what)
    }

    /// Every touched image's memory entry and the total cost against the reference; `rule` names
    /// what the operation just done fixes (MEM-1 an insert or hit, MEM-2 a refusal, MEM-3 a trim).
    func compareMemory(rule: String, after what: String) async -> Divergence? {
        guard let reference = memory, let probe = loader.memoryCache else { return nil }
        let expected = touched.filter { reference.contains($0) }
        var observed: [Int] = []
        for image in touched where await probe.contains(sources[image]) { observed.append(image) }
        let order = reference.recency.map(String.init).joined(separator: ", ")
        if Set(expected) != Set(observed) {
            let explanation = switch rule {
            case "MEM-2": "an image over the per-entry limit is not inserted and evicts nothing"
            case "MEM-3": "a trim drops the least recently used first, only until the total is at most the target"
            default: "an insert evicts the least recently used (a hit refreshes recency), only until the total fits"
            }
            return divergence(rule, "after \(what) the memory cache holds images \(expected.sorted()) "
                              + "(least recently used first: \(order)); \(explanation)",
                              "it holds \(observed.sorted())")
        }
        let totalCost = await probe.totalCost
        if totalCost != reference.totalCost || totalCost > limits.memoryCost {
            return divergence(rule, "after \(what) a total cost of \(reference.totalCost) (the held images' costs; limit \(limits.memoryCost))",
                              "totalCost \(totalCost)")
        }
        return nil
    }

    /// The disk cache's entry count against the entries the reference knows are (or may be)
    /// held, and the bytes in its directory against the limit (DISK-4: after every write).
    func compareDisk(after what: String) async -> Divergence? {
        guard let reference = disk, let probe = loader.diskCache else { return nil }
        // The entries' files (named by the key's hash, DISK-2): a cache's own bookkeeping (Imago's
        // `.lock` holds a change counter of a few bytes) is not what the size limit bounds.
        let bytes = (try? DirectoryScan.files(in: run.context.cacheDirectory)
            .filter { ConformanceCheck.namesEntry($0.url.lastPathComponent) }.reduce(0) { $0 + $1.size }) ?? 0
        let totalSize = await probe.totalSize
        if bytes > limits.diskSize || totalSize > limits.diskSize {
            return divergence("DISK-4", "after \(what) at most \(limits.diskSize) bytes on disk (the size limit holds after every write)",
                              "\(bytes) bytes of entries in the cache directory (totalSize \(totalSize))")
        }
        let count = await probe.entryCount
        if count < reference.certainCount {
            return divergence("DISK-4", "after \(what) at least \(reference.certainCount) entries (the most recent that fit the limit "
                              + "with \(ReferenceDiskCache.metadataAllowance) bytes of metadata each must stay)", "entryCount \(count)")
        }
        if count > reference.possibleCount {
            return divergence("DISK-2", "after \(what) at most \(reference.possibleCount) entries (one per image stored)",
                              "entryCount \(count)")
        }
        return nil
    }
}
