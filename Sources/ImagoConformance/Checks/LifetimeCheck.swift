import Foundation
import ImagoTestServer

extension ConformanceCheck {
    /// MEM-5. What it sees: the adapter's loader and model objects, plus (with a `LifetimeProbe`)
    /// the real objects behind them and the decoded bytes alive in the process. What it cannot
    /// see: memory that is neither an object the probe names nor a decoded image it counts (a
    /// byte array captured by a task that ended, a leaked descriptor), and leaks that only grow
    /// over more loads than it makes.
    static let lifetimeCheck = ConformanceCheck(
        "MEM-5", "Once a loader and every model it made are released, none of its objects nor the images it "
            + "decoded stay reachable, even with a load still waiting for its server.") { run in
        let outcome = try await useAndRelease(run)
        defer { outcome.heldGate.open() }   // only after the check: the release must not wait for the server
        let released = await waitUntil(timeout: .seconds(5)) { outcome.watched.allSatisfy(\.isReleased) }
        let alive = outcome.watched.filter { !$0.isReleased }.map(\.name)
        run.note("watched \(outcome.watched.count) objects: \(outcome.watched.map(\.name).joined(separator: ", "))")
        try run.expect(released, "still reachable 5 s after the loader and its models were released "
                       + "(the held response still unanswered): \(alive.joined(separator: ", "))")
        guard outcome.hasProbe else {
            run.partial("no LifetimeProbe, only the adapter's objects were watched (not the loader's own objects "
                        + "nor its decoded images)")
            return
        }
        guard let baseline = outcome.liveBytesBefore, let during = outcome.liveBytesWhileHeld else {
            run.partial("the LifetimeProbe counts no live decoded bytes: objects only")
            return
        }
        // A count that stays at zero while the models show images cannot show a leak: the probe
        // does not count. The count is the process's, though: other work (an earlier check's
        // abandoned loads, another suite in the same process) may free images meanwhile, as many
        // as these models hold or more (the baseline waits for the count to settle, which makes
        // that rare), and a count that did not rise says only that; the check keeps to the
        // objects then.
        try run.expect(during != 0 || baseline != 0, "the probe counted no live decoded bytes while the models "
                       + "showed images: it cannot show a leak")
        guard during > baseline else {
            run.partial("the probe counted \(during) live decoded bytes while the models showed images, \(baseline) "
                        + "before (other work freed images meanwhile): objects only")
            return
        }
        // A fresh loader with nothing loaded reads the process-wide count.
        let counter = try run.loader(try run.newContext()).lifetime
        var after = counter?.liveDecodedBytes
        let freed = await waitUntil(timeout: .seconds(5)) {
            after = counter?.liveDecodedBytes
            return (after ?? 0) <= baseline
        }
        run.note("live decoded bytes: \(baseline) before, \(during) while held, \(after.map(String.init) ?? "?") after")
        try run.expect(freed, "\((after ?? 0) - baseline) decoded bytes outlived the loader that decoded them")
    }

    /// The process's live decoded bytes once they stopped changing (the same in reads 20 ms apart
    /// for 100 ms, at most 3 s): images an earlier check's abandoned work still frees are gone.
    @MainActor
    private static func settledLiveBytes(_ probe: (any LifetimeProbe)?) async -> Int? {
        guard let probe, var last = probe.liveDecodedBytes else { return nil }
        var stableSince = ContinuousClock.now
        let deadline = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < deadline, ContinuousClock.now - stableSince < .milliseconds(100) {
            try? await Task.sleep(for: .milliseconds(20))
            guard let now = probe.liveDecodedBytes else { return nil }
            if now != last { (last, stableSince) = (now, .now) }
        }
        return last
    }

    private struct LifetimeOutcome {
        let watched: [WeakObject]
        let liveBytesBefore: Int?
        let liveBytesWhileHeld: Int?
        let heldGate: Gate
        /// Whether the adapter provides a `LifetimeProbe` (without one only its own objects are seen).
        let hasProbe: Bool
    }

    /// Loads through memory hits, the disk cache (a second instance, when there is one), a
    /// cancelled load and a load abandoned while its response is held, and returns nothing
    /// but weak references: every strong one ends with this function. (The recorders keep
    /// fingerprints, not images, so they hold nothing of the loader's.)
    @MainActor
    private static func useAndRelease(_ run: CheckRun) async throws -> LifetimeOutcome {
        let images = run.images
        let loader = try run.loader()
        var loaders = [loader]
        let kept = run.route("kept.png", images.small)
        let other = run.route("other.png", images.other)
        let liveBefore = await settledLiveBytes(loader.lifetime)
        var models: [any ModelUnderTest] = []
        for (source, what) in [(kept, "first load"), (kept, "second load"), (other, "other image")] {
            models.append(try await run.loadToEnd(loader, source, what).model)
        }
        if run.subject.capabilities.contains(.diskCache) {
            let restarted = try run.loader()
            loaders.append(restarted)
            models.append(try await run.loadToEnd(restarted, kept, "load after restart").model)
        }
        let held = try await run.startHeldLoad("held.png", images.large, loader: loader, models: 2)
        held.models[0].model.cancel()
        models += held.models.map(\.model)
        try run.expectSuccess(models[0].phase, images.small, "first load")

        // Named as the steps name them ("loader 2", "model 3"), so evidence and steps agree.
        let watched = loaders.enumerated().flatMap { WeakObject.parts(of: $0.element, fallback: "loader \($0.offset + 1)") }
            + models.enumerated().flatMap { WeakObject.parts(of: $0.element, on: loader, fallback: "model \($0.offset + 1)") }
        run.note("phases before release: " + models.enumerated().map { index, model in
            "\((model as? RecordingModel)?.label ?? "model \(index + 1)") \(model.phase)"
        }.joined(separator: ", "))
        return LifetimeOutcome(watched: watched, liveBytesBefore: liveBefore,
                               liveBytesWhileHeld: loader.lifetime?.liveDecodedBytes, heldGate: held.gate,
                               hasProbe: (loader as? RecordingLoader)?.inner.lifetime != nil)
    }
}
