import Foundation
import ImagoTestServer

extension ConformanceCheck {
    /// MEM-4 through the loader's own pressure hook (`MemoryPressureProbe`). What it cannot see:
    /// pooled pixel memory, the decode budget and a real out-of-memory (a simulated event leaves
    /// the memory there); those are held by Imago's own tests and the pressure bench.
    static let memoryPressureCheck = ConformanceCheck(
        "MEM-4", "Pressure shrinks the memory cache (a warning to half, a critical to nothing); loads in flight "
            + "still end in exactly one terminal phase.",
        requires: [.memoryCache, .memoryPressure]) { run in
        let images = run.images
        let filling = [images.large, images.tiny1, images.tiny2]
        run.context.memoryCostLimit = filling.map(\.decodedByteCount).reduce(0, +) * 4
        run.context.memoryEntryCostLimit = images.large.decodedByteCount * 2
        let loader = try run.loader()
        guard let cache = loader.memoryCache else { throw CheckFailed(reason: "declares .memoryCache but has no probe") }
        guard let pressure = loader.memoryPressure else {
            throw CheckFailed(reason: "declares .memoryPressure but has no MemoryPressureProbe")
        }
        let cached = filling.enumerated().map { run.route("cached-\($0.offset).png", $0.element) }
        for (index, source) in cached.enumerated() { _ = try await run.loadToEnd(loader, source, "fill \(index)") }
        try run.expect(await cache.holds(cached).allSatisfy { $0 }, "the cache does not hold the three images it was filled with")

        // Two models sharing one held response, and one on a response of its own.
        let shared = try await run.startHeldLoad("held-shared.png", images.small, loader: loader, models: 2)
        defer { shared.gate.open() }
        let single = try await run.startHeldLoad("held-single.png", images.other, loader: loader)
        defer { single.gate.open() }
        let inFlight = [(shared.models[0], images.small), (shared.models[1], images.small), (single.models[0], images.other)]

        let costBefore = await cache.totalCost
        let costLimit = await cache.costLimit
        pressure.simulateMemoryPressure(.warning)
        let halved = await waitUntil(timeout: .seconds(5), asking: { await cache.totalCost <= costBefore / 2 })
        let costAfterWarning = await cache.totalCost
        run.note("warning: cost \(costBefore) → \(costAfterWarning)")
        try run.expect(halved, "a warning left the cache at \(costAfterWarning) of \(costBefore) (at most half must remain)")
        try run.expect(costAfterWarning <= costLimit, "cost \(costAfterWarning) over the limit after the warning")

        pressure.simulateMemoryPressure(.critical)
        let emptied = await waitUntil(timeout: .seconds(5), asking: {
            let (cost, held) = (await cache.totalCost, await cache.holds(cached))
            return cost == 0 && !held.contains(true)
        })
        let costAfterCritical = await cache.totalCost
        run.note("critical: cost \(costAfterCritical), holds \(await cache.holds(cached))")
        try run.expect(emptied, "a critical left \(costAfterCritical) bytes in the cache (it must hold nothing)")
        let endedEarly = inFlight.filter { $0.0.recorder.phases.contains(where: \.isTerminal) }
        try run.expect(endedEarly.isEmpty, "pressure ended a load whose response was still held: "
                       + endedEarly.map(\.0.recorder.transcript).joined(separator: ", "))

        shared.gate.open()
        single.gate.open()
        for (load, image) in inFlight {
            try await run.expectTerminal(load.recorder, "load of \(run.name(load.model)) in flight during the pressure")
            try run.expectSuccess(load.model.phase, image, "load of \(run.name(load.model)) in flight during the pressure")
        }
        await run.settle()
        let terminals = inFlight.map { $0.0.recorder.phases.filter(\.isTerminal).count }
        run.note("in flight: \(inFlight.map(\.0.recorder.transcript)), terminal phases \(terminals)")
        try run.expect(terminals.allSatisfy { $0 == 1 }, "terminal phases per load in flight \(terminals), expected one each")

        let (again, _) = try await run.loadToEnd(loader, shared.source, "reload after the pressure")
        let costAfterReload = await cache.totalCost
        run.note("reload \(again.phase), cost \(costAfterReload)")
        try run.expectSuccess(again.phase, images.small, origin: .memory, "a load finished after the pressure, read again")
        try run.expect(costAfterReload <= costLimit, "cost \(costAfterReload) over the limit after the pressure")
    }
}
