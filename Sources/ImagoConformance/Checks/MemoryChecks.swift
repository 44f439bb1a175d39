import Foundation

extension ConformanceCheck {
    static let memoryChecks: [ConformanceCheck] = [
        ConformanceCheck("MEM-1", "Cost is the decoded size, the limit holds after every insert, reads refresh recency.",
                         requires: .memoryCache) { run in
            let (large, tiny1, tiny2) = (run.images.large, run.images.tiny1, run.images.tiny2)
            let limit = large.decodedByteCount + tiny1.decodedByteCount + tiny2.decodedByteCount - 1
            run.context.memoryCostLimit = limit
            run.context.memoryEntryCostLimit = limit
            let loader = try run.loader()
            guard let cache = loader.memoryCache else { throw CheckFailed(reason: "declares .memoryCache but has no probe: return a MemoryCacheProbe from LoaderUnderTest.memoryCache, or do not declare .memoryCache") }
            let costLimit = await cache.costLimit
            try run.expect(costLimit == limit, "the cache's limit is \(costLimit), asked for \(limit): pass LoaderContext.memoryCostLimit to the cache")
            let sources = [run.route("large.png", large), run.route("tiny-1.png", tiny1), run.route("tiny-2.png", tiny2)]
            _ = try await run.loadToEnd(loader, sources[0], "large")
            let costOfLarge = await cache.totalCost
            run.note("limit \(limit), cost after the \(large.fingerprint) image \(costOfLarge) (decoded \(large.decodedByteCount))")
            try run.expect(costOfLarge >= large.decodedByteCount && costOfLarge <= large.decodedByteCount + large.fingerprint.height * 64,
                           "cost \(costOfLarge) is not the decoded size \(large.decodedByteCount): count width × height × 4 bytes per image, not the encoded size or 1")
            _ = try await run.loadToEnd(loader, sources[1], "tiny 1")
            let costAfterTiny1 = await cache.totalCost
            try run.expect(costAfterTiny1 <= costLimit, "cost \(costAfterTiny1) over the limit \(costLimit)")
            let (reread, _) = try await run.loadToEnd(loader, sources[0], "re-read large")
            try run.expect(reread.phase.origin == .memory, "re-reading the large image was not a memory hit: it fits the limit, so it must still be held and served as success(memory) inside load()")
            _ = try await run.loadToEnd(loader, sources[2], "tiny 2")
            let kept = await cache.holds(sources)
            let costAfterTiny2 = await cache.totalCost
            run.note("after tiny 2: cost \(costAfterTiny2), holds large/tiny1/tiny2 = \(kept)")
            try run.expect(costAfterTiny2 <= costLimit, "cost \(costAfterTiny2) over the limit \(costLimit)")
            try run.expect(kept == [true, false, true],
                           "after tiny 2 the cache holds large/tiny1/tiny2 = \(kept), expected [true, false, true]: a memory hit must refresh recency, "
                           + "and an insert must evict least recently used entries (here only tiny 1) just until the total fits")
        },
        ConformanceCheck("MEM-2", "An image over the per-entry limit is not inserted, evicts nothing, still succeeds.",
                         requires: .memoryCache) { run in
            let large = run.images.large
            // Room for two large images in all, but one is over the per-entry limit. The cache is
            // filled with small entries until the next would not fit, so a cache that makes room
            // for the oversized image before refusing it has to evict.
            run.context.memoryCostLimit = large.decodedByteCount * 2
            run.context.memoryEntryCostLimit = large.decodedByteCount - 1
            let loader = try run.loader()
            guard let cache = loader.memoryCache else { throw CheckFailed(reason: "declares .memoryCache but has no probe: return a MemoryCacheProbe from LoaderUnderTest.memoryCache, or do not declare .memoryCache") }
            var fill: [ConformanceSource] = []
            var entryCost = 0
            let costLimit = await cache.costLimit
            var cost = 0
            repeat {
                let source = run.route("fill-\(fill.count).png", try run.images.series(fill.count))
                let before = await cache.totalCost
                let (model, _) = try await run.loadToEnd(loader, source, "fill \(fill.count)")
                try run.expectSuccess(model.phase, try run.images.series(fill.count), "fill \(fill.count)")
                fill.append(source)
                cost = await cache.totalCost
                entryCost = max(entryCost, cost - before)
                let held = await cache.holds(fill).filter { $0 }.count
                try run.expect(held == fill.count && cost <= costLimit,
                               "filling: after \(fill.count) small loads the cache holds \(held) of them, cost "
                               + "\(cost) of \(costLimit)")
            } while cost + entryCost <= costLimit && fill.count < 64
            let costBefore = cost
            let oversized = run.route("large.png", large)
            let (model, _) = try await run.loadToEnd(loader, oversized, "oversized")
            let kept = await cache.holds(fill).filter { $0 }.count
            let costAfter = await cache.totalCost
            run.note("limit \(costLimit), filled with \(fill.count) entries to cost \(costBefore); after the "
                     + "oversized load cost \(costAfter), \(kept) of them kept; \(model.phase)")
            try run.expectSuccess(model.phase, large, "oversized load")
            try run.expect(!(await cache.contains(oversized)), "the oversized image was inserted: refuse images over LoaderContext.memoryEntryCostLimit")
            try run.expect(kept == fill.count && costAfter == costBefore,
                           "the oversized image evicted \(fill.count - kept) entries before it was refused: check the per-entry limit before evicting")
        },
        ConformanceCheck("MEM-3", "Trimming drops the least recently used first and leaves the cache consistent.",
                         requires: .memoryCache) { run in
            let (large, tiny1, tiny2) = (run.images.large, run.images.tiny1, run.images.tiny2)
            run.context.memoryCostLimit = (large.decodedByteCount + tiny1.decodedByteCount + tiny2.decodedByteCount) * 2
            run.context.memoryEntryCostLimit = large.decodedByteCount * 2
            let loader = try run.loader()
            guard let cache = loader.memoryCache else { throw CheckFailed(reason: "declares .memoryCache but has no probe: return a MemoryCacheProbe from LoaderUnderTest.memoryCache, or do not declare .memoryCache") }
            let sources = [run.route("large.png", large), run.route("tiny-1.png", tiny1), run.route("tiny-2.png", tiny2)]
            for source in sources { _ = try await run.loadToEnd(loader, source, source.url.lastPathComponent) }
            _ = try await run.loadToEnd(loader, sources[0], "re-read large")
            let target = await cache.totalCost - tiny1.decodedByteCount - tiny2.decodedByteCount
            await cache.trim(toCost: target)
            let kept = await cache.holds(sources)
            let trimmedCost = await cache.totalCost
            run.note("trimmed to \(target): cost \(trimmedCost), holds large/tiny1/tiny2 = \(kept)")
            try run.expect(trimmedCost <= target, "cost \(trimmedCost) above the trim target \(target): trim(toCost:) must drop entries until the total is at most the target")
            try run.expect(kept == [true, false, false], "after trim(toCost: \(target)) the cache holds large/tiny1/tiny2 = \(kept), expected [true, false, false]: trimming must drop the least recently used (tiny 1, then tiny 2) and stop once the total fits, keeping the recently read large image")
            let (again, _) = try await run.loadToEnd(loader, sources[0], "large after the trim")
            try run.expect(again.phase.origin == .memory, "a kept entry is no longer served: \(again.phase); after a trim the remaining entries must still be memory hits (keep the index and the storage consistent)")
        },
    ]
}
