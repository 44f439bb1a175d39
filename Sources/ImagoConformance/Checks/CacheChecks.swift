import Foundation
import ImagoTestServer

extension ConformanceCheck {
    static let cacheChecks: [ConformanceCheck] = [
        ConformanceCheck("CACHE-1", "A memory hit publishes exactly one success(memory) inside load().",
                         requires: .memoryCache) { run in
            let source = run.route("hit.png", run.images.small)
            let loader = try run.loader()
            _ = try await run.loadToEnd(loader, source, "first load")
            let requests = run.requests(source)
            let decodes = await loader.decodeCount
            let (model, recorder) = run.model(loader, source)
            model.load()
            let immediate = model.phase
            await run.settle()
            let decodesAfter = await loader.decodeCount
            run.note("phase after load() \(immediate), phases \(recorder.transcript), requests \(run.requests(source)), "
                     + "decodes \(decodesAfter)")
            try run.expectSuccess(immediate, run.images.small, origin: .memory, later: recorder.phases,
                                 "phase after load() returned")
            try run.expect(recorder.phases == [.empty, immediate], "published more than one phase for a hit: a memory hit must publish only success(memory), inside load(), with no empty or loading before it")
            try run.expect(run.requests(source) == requests, "a memory hit made a request: look the memory cache up inside load() before starting any fetch")
            try run.expect(decodesAfter == decodes, "a memory hit decoded: the memory cache must hold decoded images, not bytes")
        },
        ConformanceCheck("CACHE-2", "A disk-only key needs no request, succeeds from disk, and is promoted.",
                         requires: .diskCache) { run in
            let source = run.route("disk.png", run.images.small)
            _ = try await run.loadToEnd(try run.loader(), source, "first load")
            let restarted = try run.loader()
            let (model, recorder) = try await run.loadToEnd(restarted, source, "load after restart")
            run.note("after restart \(recorder.transcript), requests \(run.requests(source))")
            try run.expectSuccess(model.phase, run.images.small, origin: .disk, "load after restart")
            try run.expect(run.requests(source) == 1, "a disk hit made a request: read the disk cache (in LoaderContext.cacheDirectory, kept across instances) before the network")
            if run.subject.capabilities.contains(.memoryCache) {
                let (again, _) = try await run.loadToEnd(restarted, source, "load after the disk hit")
                run.note("then \(again.phase)")
                try run.expectSuccess(again.phase, run.images.small, origin: .memory, "load after the disk hit (promotion)")
            }
        },
        ConformanceCheck("CACHE-3", "Every success tells its true origin.") { run in
            let source = run.route("origin.png", run.images.small)
            let loader = try run.loader()
            let (first, _) = try await run.loadToEnd(loader, source, "first load")
            let (second, _) = try await run.loadToEnd(loader, source, "second load")
            let capabilities = run.subject.capabilities
            let expected: ObservedOrigin = capabilities.contains(.memoryCache) ? .memory
                : capabilities.contains(.diskCache) ? .disk : .network
            run.note("first \(first.phase), second \(second.phase), requests \(run.requests(source))")
            try run.expectSuccess(first.phase, run.images.small, origin: .network, "first load")
            try run.expectSuccess(second.phase, run.images.small, origin: expected, "second load")
            try run.expect(run.requests(source) == (expected == .network ? 2 : 1), "\(run.requests(source)) requests disagree with the origin: a success from a cache must not fetch, and origin network means it did")
        },
        ConformanceCheck("CACHE-4", "A corrupt disk entry is a miss: removed, fetched again.", requires: .diskCache) { run in
            let source = run.route("corrupt.png", run.images.small)
            let first = try run.loader()
            _ = try await run.loadToEnd(first, source, "first load")
            let corrupted = try await first.diskCache?.corruptEntry(for: source.url) ?? false
            try run.expect(corrupted, "no disk entry to corrupt after a successful load: the entry must be written (and found by corruptEntry(for:)) before success is published")
            let restarted = try run.loader()
            let (model, recorder) = try await run.loadToEnd(restarted, source, "load over the corrupt entry")
            run.note("after corruption \(recorder.transcript), requests \(run.requests(source))")
            try run.expectSuccess(model.phase, run.images.small, origin: .network, "load over the corrupt entry")
            try run.expect(run.requests(source) == 2, "the corrupt entry was not fetched again: when a disk entry fails to decode, remove it and fetch from the network")
            let (healed, _) = try await run.loadToEnd(try run.loader(), source, "load after the repair")
            run.note("then \(healed.phase)")
            try run.expectSuccess(healed.phase, run.images.small, origin: .disk, "load after the repair")
        },
    ]
}
