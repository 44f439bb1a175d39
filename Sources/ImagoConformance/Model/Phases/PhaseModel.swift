/// The reference model of the phase rules: what a conforming loader publishes, requests,
/// decodes and caches for any sequence of `PhaseOperation`s, given the capabilities it declares.
/// Pure: no loader, no server, no time. Every expectation names the rule (Docs/phase-rules.md)
/// it comes from, so a loader's divergence is reported as a rule ID.
///
/// What the model leaves open it does not predict: progress (folded), placeholders and previews,
/// the messages of transport and decoding errors, and whether an undecodable body was handed to
/// a decoder. Situations the rules do not settle are skipped (`Outcome.skipped`), never guessed.
struct PhaseModel {
    /// Automatic retries the replay asks of loaders that declare `.retries` and `.injectableClock`
    /// (their back-off waits on the check's clock, so the model can say when a retry is due);
    /// none for other loaders, whose context asks for none.
    static let retriesAsked = 2

    /// Whether the loader retries transient failures in this model (see `retriesAsked`).
    var retries: Bool { capabilities.isSuperset(of: [.retries, .injectableClock]) }

    /// Works waiting out a back-off: each must be asleep on the injected clock.
    var backingOff: Int { works.values.filter(\.backingOff).count }

    let capabilities: LoaderCapabilities
    private(set) var models: [Model] = []
    private(set) var works: [Int: Work] = [:]
    private var nextWork = 0
    private(set) var memory: Set<ModelSource> = []
    private(set) var disk: Set<ModelSource> = []
    private(set) var requests: [ModelSource: Int] = [:]
    /// Requests whose every subscriber left: the loader must close them (SHARE-3).
    private(set) var abandonedRequests = 0
    /// The rule the last abandonment comes from: SHARE-3 for a cancel, SOURCE-1 for a source
    /// change ("cancels the current attempt as `cancel()` does").
    private(set) var closeRule = "SHARE-3"
    /// Decodes so far: at least `lowerBound`; an undecodable body may or may not reach a decoder.
    private(set) var decodes = 0...0
    /// Whether a memory-pressure event has emptied the memory cache (an image still there breaks MEM-4).
    private(set) var pressured = false
    /// Sources whose last work was abandoned by every subscriber (a new load must not reuse it).
    private var abandoned: Set<ModelSource> = []

    init(capabilities: LoaderCapabilities) { self.capabilities = capabilities }

    /// The live work loading `source`, if any.
    func work(for source: ModelSource) -> Int? { works.first { $0.value.source == source }?.key }

    /// The rule a wrong request count for each source breaks: that of the last operation that
    /// could add one (a load, a retry, an answer, a back-off's end; a cancel or a source change
    /// only ever removes work), so a request arriving late is still blamed on its cause.
    private(set) var requestRules: [ModelSource: String] = [:]

    /// Applies `operation`; model numbers count from 1.
    mutating func apply(_ operation: PhaseOperation) -> Outcome {
        let source: ModelSource? = switch operation {
        case .load(let number), .retry(let number), .cancel(let number), .setSource(let number, _):
            models.indices.contains(number - 1) ? models[number - 1].source : nil
        case .respond(let source, _): source
        default: nil
        }
        let outcome = transition(operation)
        if let source, outcome.skipped == nil, let rule = outcome.requestRule { requestRules[source] = rule }
        return outcome
    }

    private mutating func transition(_ operation: PhaseOperation) -> Outcome {
        switch operation {
        case .fetchWith:
            guard models.isEmpty else { return Outcome(skipped: "a fetch strategy is chosen when the loader is made") }
            return Outcome(requestRule: nil, decodeRule: "FETCH-3")
        case .appear(let source):
            models.append(Model(source: source))
            return Outcome(phaseOnReturn: [models.count: ([.empty], "INIT-1")], requestRule: "INIT-1", decodeRule: "INIT-1")
        case .load(let number), .retry(let number):
            guard models.indices.contains(number - 1), models[number - 1].alive else { return Outcome(skipped: "no such model") }
            return load(number, isRetry: { if case .retry = operation { true } else { false } }())
        case .cancel(let number):
            guard models.indices.contains(number - 1), models[number - 1].alive else { return Outcome(skipped: "no such model") }
            return reset(number, source: models[number - 1].source, .cancel)
        case .setSource(let number, let source):
            guard models.indices.contains(number - 1), models[number - 1].alive else { return Outcome(skipped: "no such model") }
            guard source != models[number - 1].source else {
                return Outcome(phaseOnReturn: [number: ([models[number - 1].phase], "SOURCE-1")], requestRule: nil,
                               decodeRule: "SOURCE-1")
            }
            if capabilities.contains(.reloadsOnSourceChange), source != nil {
                return reload(number, to: source)
            }
            return reset(number, source: source, .sourceChange)
        case .observe(let number):
            guard models.indices.contains(number - 1), models[number - 1].alive else { return Outcome(skipped: "no such model") }
            models[number - 1].lateObservers.append(models[number - 1].expected.count - 1)
            return Outcome(phaseOnReturn: [number: ([models[number - 1].phase], "ORDER-2")], requestRule: nil,
                           decodeRule: "ORDER-2")
        case .respond(let source, let answer):
            return respond(source, answer)
        case .advanceClock:
            // Every back-off ends: each waiting work asks again.
            for (id, work) in works where work.backingOff {
                works[id]?.backingOff = false
                requests[work.source, default: 0] += 1
                requestRules[work.source] = "RETRY-1"
            }
            return Outcome(requestRule: nil, decodeRule: "RETRY-1")
        case .criticalMemoryPressure:
            memory = []
            pressured = true
            return Outcome(requestRule: "MEM-4", decodeRule: "MEM-4")
        case .restart:
            var outcome = Outcome(requestRule: nil, decodeRule: "TRANS-3")
            for number in models.indices.map({ $0 + 1 }) where models[number - 1].alive {
                let reset = reset(number, source: models[number - 1].source, .cancel)
                outcome.phaseOnReturn.merge(reset.phaseOnReturn) { $1 }
                models[number - 1].alive = false
            }
            // A new loader: its memory cache is empty and it has decoded nothing yet.
            memory = []
            decodes = 0...0
            return outcome
        }
    }

    /// `load()` (or `retry()`): a new attempt from `empty` or `failure`, nothing otherwise.
    private mutating func load(_ number: Int, isRetry: Bool) -> Outcome {
        let model = models[number - 1]
        let unchanged = Outcome(phaseOnReturn: [number: ([model.phase], isRetry ? "RETRY-3" : "SHARE-1")],
                                requestRule: isRetry ? "RETRY-3" : "SHARE-1", decodeRule: "SHARE-1")
        let fromFailure: Bool
        switch model.phase {
        case .loading, .success: return unchanged
        case .empty: if isRetry { return unchanged }; fromFailure = false
        case .failure: fromFailure = true
        }
        guard let source = model.source else {
            if capabilities.contains(.staysEmptyWithoutSource) {
                return Outcome(phaseOnReturn: [number: ([.empty], "INIT-2")], requestRule: "INIT-2", decodeRule: "INIT-2")
            }
            // Every load() without a source publishes the failure before returning (INIT-2), a
            // second one too: an observer sees the attempt fail again.
            publish(number, .failure(.missingSource), "INIT-2", silence: "TRANS-1")
            return Outcome(phaseOnReturn: [number: ([.failure(.missingSource)], "INIT-2")], requestRule: "INIT-2", decodeRule: "INIT-2")
        }
        let attemptRule = isRetry ? "RETRY-3" : fromFailure ? "ERR-4" : "INIT-3"
        if memory.contains(source) {
            let hit = ExpectedPhase.success(.memory, source)
            if fromFailure { publish(number, .loading, "TRANS-2", silence: "TRANS-1") }
            publish(number, hit, "CACHE-1", silence: "TRANS-1")
            return Outcome(phaseOnReturn: [number: (fromFailure ? [.loading, hit] : [hit], "CACHE-1")],
                           requestRule: "CACHE-1", decodeRule: "CACHE-1")
        }
        publish(number, .loading, attemptRule, silence: "TRANS-1")
        let onReturn: [Int: (allowed: [ExpectedPhase], rule: String)]
        if let shared = work(for: source) {
            works[shared]?.subscribers.insert(number)
            models[number - 1].work = shared
            return Outcome(phaseOnReturn: [number: ([.loading], attemptRule)], requestRule: "SHARE-2", decodeRule: "SHARE-2")
        }
        if capabilities.contains(.diskCache), disk.contains(source) {
            // A disk hit ends without the server: the check waits for it before the next operation.
            onReturn = [number: ([.loading, .success(.disk, source)], attemptRule)]
            publish(number, .success(.disk, source), "CACHE-2", silence: "TRANS-1")
            if capabilities.contains(.memoryCache) { memory.insert(source) }
            decodes = (decodes.lowerBound + 1)...(decodes.upperBound + 1)
            return Outcome(phaseOnReturn: onReturn, requestRule: "CACHE-2", decodeRule: "CACHE-2")
        }
        let id = nextWork
        nextWork += 1
        works[id] = Work(source: source, subscribers: [number], retriesLeft: retries ? Self.retriesAsked : 0)
        models[number - 1].work = id
        requests[source, default: 0] += 1
        let requestRule = isRetry ? "RETRY-3" : fromFailure ? "ERR-4" : abandoned.contains(source) ? "SHARE-4" : "SHARE-1"
        abandoned.remove(source)
        return Outcome(phaseOnReturn: [number: ([.loading], attemptRule)], requestRule: requestRule, decodeRule: "SHARE-2")
    }

    /// `cancel()`, a source change (`always`: the source changes, the phase resets whatever it
    /// was; `publishes` false: AsyncImage's reload, which publishes no `empty`) or a restart:
    /// leaves the shared work, and closes it if nobody is left on it.
    /// Why a model leaves its work, which decides what it publishes (TRANS-4 judges the phase on
    /// return) and the rule that keeps it silent afterwards.
    private enum Leaving {
        /// `cancel()`, or a restart: `empty` if it was loading, then nothing (TRANS-3).
        case cancel
        /// `setSource(_:)` to another source: `empty` whatever it showed, then nothing of the old
        /// source (SOURCE-1).
        case sourceChange
        /// AsyncImage's reload (`.reloadsOnSourceChange`): no `empty`; the new attempt follows at once.
        case reload

        var silence: String { self == .cancel ? "TRANS-3" : "SOURCE-1" }
    }

    private mutating func reset(_ number: Int, source: ModelSource?, _ leaving: Leaving) -> Outcome {
        let (rule, silence) = ("TRANS-4", leaving.silence)
        let phase = models[number - 1].phase
        let wasLoading = phase == .loading
        if let id = models[number - 1].work {
            works[id]?.subscribers.remove(number)
            if works[id]?.subscribers.isEmpty == true {
                abandoned.insert(works[id]!.source)
                // A work waiting out a back-off has no request open to close (RETRY-2: and makes no more).
                if works[id]?.backingOff == false { abandonedRequests += 1 }
                works[id] = nil
                closeRule = leaving == .cancel ? "SHARE-3" : "SOURCE-1"
            }
            models[number - 1].work = nil
        }
        models[number - 1].source = source
        if leaving == .sourceChange || (leaving == .cancel && wasLoading) {
            publish(number, .empty, rule, silence: silence)
            return Outcome(phaseOnReturn: [number: ([.empty], rule)], requestRule: nil, decodeRule: "TRANS-3")
        }
        // Nothing loads: the call changes nothing (an image already shown stays, TRANS-4).
        models[number - 1].silence = silence
        return Outcome(phaseOnReturn: [number: ([phase], rule)], requestRule: nil, decodeRule: "TRANS-3")
    }

    /// AsyncImage's profile (`.reloadsOnSourceChange`): a change to another image abandons the old
    /// attempt without publishing `empty` and starts the new one at once, as `load()` from `empty`
    /// would (a memory hit answers from any phase); until its first publication the model may
    /// still show the phase it had.
    private mutating func reload(_ number: Int, to source: ModelSource?) -> Outcome {
        let kept = models[number - 1].phase
        _ = reset(number, source: source, .reload)
        models[number - 1].phase = .empty
        var outcome = load(number, isRetry: false)
        if let onReturn = outcome.phaseOnReturn[number] {
            outcome.phaseOnReturn[number] = (onReturn.allowed + [kept], "TRANS-4")
        }
        return outcome
    }

    /// The server answers `source`'s held requests: the live work's subscribers end.
    private mutating func respond(_ source: ModelSource, _ answer: ServerOutcome) -> Outcome {
        // An answer adds no request of its own (a retry's comes when the back-off ends), so the
        // rule of the operation that caused a late request stands.
        let outcome = Outcome(requestRule: nil, decodeRule: "SHARE-2")
        guard let id = work(for: source), let work = works[id], !work.backingOff else { return outcome }
        if [.unavailable, .truncated, .truncatedChunked].contains(answer), work.retriesLeft > 0 {
            // A transient failure with retries left: the phase stays loading, the back-off starts.
            works[id]?.retriesLeft -= 1
            works[id]?.backingOff = true
            if answer != .unavailable { decodes = decodes.lowerBound...(decodes.upperBound + 1) }
            return Outcome(requestRule: nil, decodeRule: "SHARE-2")
        }
        works[id] = nil
        let terminal: ExpectedPhase
        let rule: String
        switch answer {
        case .image:
            terminal = .success(.network, source)
            rule = "TRANS-1"
            decodes = (decodes.lowerBound + 1)...(decodes.upperBound + 1)
            if capabilities.contains(.memoryCache) { memory.insert(source) }
            if capabilities.contains(.diskCache) { disk.insert(source) }
        case .notFound: (terminal, rule) = (.failure(.httpStatus(404)), "ERR-1")
        case .unavailable: (terminal, rule) = (.failure(.httpStatus(503)), "ERR-1")
        // A body that is cut short, empty or no image may reach a decoder before it fails (a
        // decoder fed while the body streams in starts at the first bytes): counted or not.
        case .truncated, .truncatedChunked: (terminal, rule) = (.failure(.transport), "ERR-3")
        case .empty: (terminal, rule) = (.failure(.emptyData), "ERR-2")
        case .notAnImage: (terminal, rule) = (.failure(.decoding), "ERR-2")
        }
        if [.truncated, .truncatedChunked, .empty, .notAnImage].contains(answer) { decodes = decodes.lowerBound...(decodes.upperBound + 1) }
        // With retries on, a failure that does not come is a retry that should not be: of a
        // non-transient failure (RETRY-1), or past the retries asked (RETRY-2).
        let missingRule = !retries || answer == .image ? nil : [.unavailable, .truncated, .truncatedChunked].contains(answer) ? "RETRY-2" : "RETRY-1"
        for number in work.subscribers.sorted() {
            models[number - 1].work = nil
            publish(number, terminal, rule, silence: "TRANS-1", missingRule: missingRule)
        }
        return outcome
    }

    private mutating func publish(_ number: Int, _ phase: ExpectedPhase, _ rule: String, silence: String,
                                  missingRule: String? = nil) {
        models[number - 1].phase = phase
        models[number - 1].expected.append(Expected(phase: phase, rule: rule, missingRule: missingRule))
        models[number - 1].silence = silence
    }
}
