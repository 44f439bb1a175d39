/// One replay of a phase-model sequence: each operation applied to the reference model and to
/// the loader under test, then everything the rules fix compared, in this order: the phase each
/// model shows when the call returns, the phases published (waited for, 5 s at most), requests
/// per source, connections of abandoned work closed, decodes, what the caches hold. The first
/// difference is the divergence, named by the rule of the expectation it broke.
@MainActor
final class PhaseReplay {
    private let run: CheckRun
    private let server: PhaseServer
    private var reference: PhaseModel
    private var loader: any LoaderUnderTest
    private var models: [(model: any ModelUnderTest, recorder: PhaseRecorder)?] = []
    /// Late observers' recorders, by model number, in the order they subscribed: what the
    /// observer got, and what the model's phase stream yielded (when it has one).
    private var lateRecorders: [Int: [(observer: PhaseRecorder, stream: StreamRecorder?)]] = [:]
    private let closedBefore: Int
    /// The last operation's expectations: the final comparison, after the settle window, blames
    /// a late decode on it.
    private var lastOutcome = PhaseModel.Outcome()
    /// Every loader and model the replay made, weakly: once the replay lets go of them, with
    /// requests still held and back-offs still asleep, none may stay reachable (MEM-5).
    private var made: [WeakObject] = []
    /// How long a predicted publication, request or close may take before it counts as missing.
    private let patience = Duration.seconds(5)

    init(run: CheckRun, trial: Int, operations: [PhaseOperation]) throws {
        self.run = run
        server = try PhaseServer(run: run, trial: trial, operations: operations)
        reference = PhaseModel(capabilities: run.subject.capabilities)
        // Each replay is a new app: empty directories, so no earlier replay's entries answer.
        run.context = try run.newContext()
        if reference.retries {
            run.context.maxRetries = PhaseModel.retriesAsked
            run.context.retryDelay = .seconds(1)
        }
        // Previews as often as passes complete, so a sequence's interlaced answers make some.
        if run.subject.capabilities.contains(.progressivePreviews) { run.context.previewInterval = .zero }
        loader = try run.loader()
        made = WeakObject.parts(of: loader, fallback: "loader")
        closedBefore = run.server.counters.connectionsClosedByClient
    }

    /// Runs `operations`; the first divergence from the model, or nil.
    func replay(_ operations: [PhaseOperation]) async throws -> Divergence? {
        defer {
            server.releaseAll()
            for late in lateRecorders.values.joined() { late.stream?.stop() }
        }
        for (index, operation) in operations.enumerated() {
            let number = index + 1
            run.step("operation \(number): \(operation)")
            let outcome = reference.apply(operation)
            if let reason = outcome.skipped {
                run.step("operation \(number) skipped: \(reason)")
                continue
            }
            lastOutcome = outcome
            try perform(operation)
            if let divergence = onReturn(outcome, number) { return divergence }
            let restarts = if case .restart = operation { true } else { false }
            if let divergence = await compare(outcome, number, caches: !restarts) { return divergence }
            if restarts {
                models = models.map { _ in nil }
                loader = try run.loader()
            made = WeakObject.parts(of: loader, fallback: "loader")
                made += WeakObject.parts(of: loader, fallback: "loader")
                if let divergence = await memoryDivergence(number) { return divergence }
                if let divergence = await diskDivergence(number) { return divergence }
            }
        }
        await run.settle()
        if let divergence = await compare(lastOutcome, operations.count, caches: true) { return divergence }
        return try await leftReachable(operations.count)
    }

    /// MEM-5 after the whole sequence: the replay lets go of its loader and models (held
    /// requests unanswered, back-offs asleep) and everything it made must become unreachable.
    private func leftReachable(_ number: Int) async throws -> Divergence? {
        for late in lateRecorders.values.joined() { late.stream?.stop() }
        lateRecorders = [:]
        models = []
        loader = try run.loader()   // a new one in its place, made after the watch list: not watched
        let watched = made
        guard await !waitUntil(timeout: patience, { watched.allSatisfy(\.isReleased) }) else { return nil }
        return Divergence(rule: "MEM-5", operation: number,
                          expected: "nothing the replay made reachable once it released its loader and models",
                          observed: "still reachable after \(patience): "
                              + watched.filter { !$0.isReleased }.map(\.name).joined(separator: ", "))
    }

    private func perform(_ operation: PhaseOperation) throws {
        switch operation {
        case .fetchWith(let strategy):
            // The model let it through, so no model exists yet: the loader is made again.
            run.context.fetchStrategy = strategy
            loader = try run.loader()
        case .appear(let source):
            let made = run.model(loader, source.map { server.sources[$0]! })
            models.append(made)
            self.made += WeakObject.parts(of: made.0, on: loader, fallback: "model \(models.count)")
        case .load(let number): models[number - 1]?.model.load()
        case .retry(let number): models[number - 1]?.model.retry()
        case .cancel(let number): models[number - 1]?.model.cancel()
        case .setSource(let number, let source): models[number - 1]?.model.setSource(source.map { server.sources[$0]! })
        case .observe(let number):
            if let live = models[number - 1] {
                lateRecorders[number, default: []].append((PhaseRecorder(live.model), live.model.phases.map(StreamRecorder.init)))
            }
        case .respond(let source, _): server.respond(source)
        case .restart:
            for case let live? in models { live.model.cancel() }
        case .criticalMemoryPressure:
            loader.memoryPressure?.simulateMemoryPressure(.critical)
        case .advanceClock:
            run.context.clock.advance(by: .seconds(3600))
        }
    }

    /// What each model shows right after the call: the rules judge "before it returns".
    private func onReturn(_ outcome: PhaseModel.Outcome, _ number: Int) -> Divergence? {
        for (model, expectation) in outcome.phaseOnReturn.sorted(by: { $0.key < $1.key }) {
            guard let live = models[model - 1] else { continue }
            let shown = live.model.phase
            if !expectation.allowed.contains(where: { $0.matches(shown, images: fingerprints) }) {
                return Divergence(rule: expectation.rule, operation: number,
                                  expected: "model \(model) shows \(expectation.allowed.map(\.description).joined(separator: " or ")) when the call returns",
                                  observed: "\(shown)")
            }
        }
        return nil
    }

    private var fingerprints: [ModelSource: ImageFingerprint] {
        Dictionary(uniqueKeysWithValues: ModelSource.allCases.map { ($0, server.image($0).fingerprint) })
    }

    /// Compares everything after operation `number` (the caches too, unless a restart is about to
    /// replace the loader whose caches they are).
    private func compare(_ outcome: PhaseModel.Outcome, _ number: Int, caches: Bool) async -> Divergence? {
        for (index, expected) in reference.models.enumerated() {
            guard let live = models[index] else { continue }
            let recorder = live.recorder
            if let divergence = await comparePhases("model \(index + 1)", folded(expected.expected), expected.silence,
                                                    { recorder.phases }, number) {
                // A request the model did not expect (a duplicate fetch arriving late) is held at
                // the next answer's gate, so a publication that never comes is its consequence:
                // name the cause.
                return extraRequest(number) ?? divergence
            }
            for (start, late) in zip(expected.lateObservers, lateRecorders[index + 1] ?? []) {
                // Everything a late observer or stream misses, repeats or gets wrong breaks ORDER-2.
                let want = folded(expected.expected[start...].map { Expected(phase: $0.phase, rule: "ORDER-2") })
                let observer = late.observer
                if let divergence = await comparePhases("model \(index + 1)'s late observer", want, "ORDER-2",
                                                        { observer.phases }, number) {
                    return divergence
                }
                if let stream = late.stream, let divergence = await comparePhases(
                    "model \(index + 1)'s late phases stream", want, "ORDER-2", { stream.phases }, number) {
                    return divergence
                }
            }
            if live.recorder.offMainCount > 0 {
                return Divergence(rule: "ORDER-1", operation: number, expected: "every phase published on the main actor",
                                  observed: "model \(index + 1) received \(live.recorder.offMainCount) off the main actor")
            }
        }
        for source in ModelSource.allCases {
            let expected = reference.requests[source, default: 0]
            let path = server.sources[source]!
            _ = await waitUntil(timeout: patience) { self.run.requests(path) >= expected }
            let seen = run.requests(path)
            if seen != expected {
                return Divergence(rule: reference.requestRules[source] ?? "SHARE-1", operation: number,
                                  expected: "\(expected) request(s) for \(source)",
                                  observed: "\(seen)")
            }
            await server.waitUntilHeld(source)
        }
        let clock = run.context.clock
        let sleepers = reference.backingOff
        // As many as the model has in back-off: fewer is a back-off not on the injected clock, more
        // a sleep that cancel() did not end (RETRY-2 asks it to end the sleep, not to outlast it).
        if reference.retries, await !waitUntil(timeout: patience, { clock.sleeperCount == sleepers }) {
            return Divergence(rule: "RETRY-2", operation: number,
                              expected: "\(sleepers) back-off(s) asleep on the injected clock (LoaderContext.clock)",
                              observed: "\(clock.sleeperCount)")
        }
        let closes = reference.abandonedRequests
        let counters = run.server.counters
        let start = closedBefore
        if (try? await counters.waitUntil(timeout: patience) { $0.connectionsClosedByClient - start >= closes }) == nil {
            return Divergence(rule: reference.closeRule, operation: number,
                              expected: "\(closes) request(s) whose every subscriber left closed by the client",
                              observed: "\(counters.connectionsClosedByClient - start)")
        }
        guard caches else { return nil }
        if let divergence = await memoryDivergence(number) { return divergence }
        let decodes = await loader.decodeCount
        if !reference.decodes.contains(decodes) {
            return Divergence(rule: outcome.decodeRule, operation: number, expected: "decodes \(describe(reference.decodes))",
                              observed: "\(decodes)")
        }
        return await diskDivergence(number)
    }

    /// A source whose server saw more requests than the model allows, as a divergence under the
    /// rule of the operation that could have added it; nil when there is none.
    private func extraRequest(_ number: Int) -> Divergence? {
        for source in ModelSource.allCases {
            let expected = reference.requests[source, default: 0]
            let seen = run.requests(server.sources[source]!)
            if seen > expected {
                return Divergence(rule: reference.requestRules[source] ?? "SHARE-1", operation: number,
                                  expected: "\(expected) request(s) for \(source)", observed: "\(seen)")
            }
        }
        return nil
    }

    /// Compares what `recorder` received (folded) with `want`; `silence` is the rule a further
    /// publication breaks.
    private func comparePhases(_ model: String, _ want: [Expected], _ silence: String, _ read: () -> [ObservedPhase],
                               _ number: Int) async -> Divergence? {
        let images = fingerprints
        func firstMismatch(_ seen: [ObservedPhase]) -> Int? {
            zip(want, seen).enumerated().first { !$0.element.0.phase.matches($0.element.1, images: images) }?.offset
        }
        _ = await waitUntil(timeout: patience) {
            let seen = folded(read())
            return seen.count >= want.count || firstMismatch(seen) != nil
        }
        let seen = folded(read())
        let transcript = "\(model) published [" + seen.map(\.description).joined(separator: ", ") + "]"
        // A cancellation published as a failure breaks TRANS-4 wherever it shows.
        if let cancelled = seen.firstIndex(of: .failure(.cancelled)), cancelled >= (firstMismatch(seen) ?? want.count) {
            return Divergence(rule: "TRANS-4", operation: number, expected: "no failure(cancelled): a cancel is never a failure",
                              observed: transcript)
        }
        if let index = firstMismatch(seen) {
            return Divergence(rule: want[index].rule, operation: number,
                              expected: "\(model)'s phase \(index + 1) to be \(want[index].phase)", observed: transcript)
        }
        if seen.count < want.count {
            return Divergence(rule: want[seen.count].missingRule ?? want[seen.count].rule, operation: number,
                              expected: "\(model) to publish \(want[seen.count].phase) (within \(patience))", observed: transcript)
        }
        if let problem = AttemptProblems.progress(read()) {
            return Divergence(rule: "PROGRESS-1", operation: number, expected: "progress that never decreases within an attempt "
                              + "and never exceeds its total", observed: "\(model): \(problem)")
        }
        if let problem = AttemptProblems.previews(read(), largest: ModelSource.allCases.map { server.image($0).fingerprint }) {
            return Divergence(rule: "PREVIEW-1", operation: number, expected: "each new preview of an attempt more detailed than "
                              + "the one before and no larger than the image", observed: "\(model): \(problem)")
        }
        if seen.count > want.count {
            return Divergence(rule: silence, operation: number,
                              expected: "\(model) to publish nothing after \(want.last!.phase)", observed: transcript)
        }
        return nil
    }

    /// What the memory cache holds against the model, given time to settle (a pressure event
    /// may reach the cache asynchronously; every other change is done before the phases are).
    private func memoryDivergence(_ number: Int) async -> Divergence? {
        guard let memory = loader.memoryCache else { return nil }
        let sources = server.sources
        let want = reference.memory
        func differing() async -> ModelSource? {
            for source in ModelSource.allCases where await memory.contains(sources[source]!) != want.contains(source) {
                return source
            }
            return nil
        }
        if await differing() != nil { _ = await waitUntil(timeout: patience, asking: { await differing() == nil }) }
        guard let source = await differing() else { return nil }
        let holds = await memory.contains(sources[source]!)
        let rule = holds ? (reference.pressured ? "MEM-4" : "ERR-3") : "CACHE-2"
        return Divergence(rule: rule, operation: number,
                          expected: "the memory cache \(holds ? "without" : "holding") \(source)'s image",
                          observed: holds ? "it holds it" : "it does not")
    }

    private func diskDivergence(_ number: Int) async -> Divergence? {
        guard let disk = loader.diskCache else { return nil }
        let entries = await disk.entryCount
        if entries != reference.disk.count {
            return Divergence(rule: entries > reference.disk.count ? "DISK-3" : "CACHE-2", operation: number,
                              expected: "\(reference.disk.count) disk entries (\(reference.disk.sorted { $0.rawValue < $1.rawValue }))",
                              observed: "\(entries)")
        }
        return nil
    }

    private func describe(_ range: ClosedRange<Int>) -> String {
        range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
    }
}
