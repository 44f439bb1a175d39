/// Random phase-model sequences: operations drawn with weights that keep a sequence busy (loads
/// and answers outnumber the rest), steered by the reference model itself so that answers go to
/// sources with requests waiting and retries to models that failed. Any sequence is valid,
/// though: the shrinker removes operations freely and the model skips what no longer applies.
enum PhaseSequences {
    static func generate(_ random: inout SeededGenerator, maxOperations: Int,
                         capabilities: LoaderCapabilities) -> [PhaseOperation] {
        var model = PhaseModel(capabilities: capabilities)
        var operations: [PhaseOperation] = []
        let length = Int.random(in: max(4, maxOperations / 2)...maxOperations, using: &random)
        // A loader with several strategies gets one per sequence (FETCH-3: each must publish
        // what the model predicts); the shrinker drops it when the divergence does not need it.
        let strategies = capabilities.fetchStrategies
        if strategies.count > 1 {
            let strategy = PhaseOperation.fetchWith(random.pick(strategies.map { ($0, 1) }))
            _ = model.apply(strategy)
            operations.append(strategy)
        }
        let first = PhaseOperation.appear(.a)
        _ = model.apply(first)
        operations.append(first)
        let restarts = capabilities.contains(.memoryCache) || capabilities.contains(.diskCache)
        let pressure = capabilities.isSuperset(of: [.memoryCache, .memoryPressure])
        while operations.count < length {
            let live = model.models.indices.filter { model.models[$0].alive }.map { $0 + 1 }
            func phase(_ number: Int) -> ExpectedPhase { model.models[number - 1].phase }
            let idle = live.filter { if case .loading = phase($0) { false } else if case .success = phase($0) { false } else { true } }
            let loading = live.filter { phase($0) == .loading }
            let failed = live.filter { if case .failure = phase($0) { true } else { false } }
            let waiting = ModelSource.allCases.filter { model.work(for: $0) != nil }
            let source = random.pick([(Optional(ModelSource.a), 6), (.b, 4), (nil, 1)])
            // Loads go mostly to models that would start an attempt, cancels to models that load:
            // the operations that change something are the ones worth sequencing.
            let candidates: [(PhaseOperation?, Int)] = [
                (live.count < 3 ? .appear(random.pick([(ModelSource.a, 4), (.b, 2), (nil, 1)])) : nil, live.count < 3 ? 3 : 0),
                (idle.randomElement(using: &random).map { .load(model: $0) }, idle.isEmpty ? 0 : 6),
                (live.randomElement(using: &random).map { .load(model: $0) }, 1),
                (loading.randomElement(using: &random).map { .cancel(model: $0) }, loading.isEmpty ? 0 : 3),
                (live.randomElement(using: &random).map { .cancel(model: $0) }, 1),
                (failed.randomElement(using: &random).map { .retry(model: $0) }, failed.isEmpty ? 0 : 3),
                (live.randomElement(using: &random).map { .setSource(model: $0, source) }, 2),
                (live.randomElement(using: &random).map { .observe(model: $0) }, 1),
                (waiting.randomElement(using: &random).map { .respond($0, outcome(&random)) }, waiting.isEmpty ? 0 : 5),
                (.respond(random.pick([(ModelSource.a, 1), (.b, 1)]), outcome(&random)), 1),
                (restarts ? .restart : nil, restarts ? 1 : 0),
                (pressure ? .criticalMemoryPressure : nil, pressure ? 1 : 0),
                (model.retries ? .advanceClock : nil, model.backingOff > 0 ? 4 : model.retries ? 1 : 0),
            ]
            guard let operation = random.pick(candidates.filter { $0.0 != nil && $0.1 > 0 }) else { continue }
            _ = model.apply(operation)
            operations.append(operation)
        }
        return operations
    }

    /// The server's answer: the image half the time, a transient failure (503, a cut body) a
    /// quarter, each other way of failing now and then.
    private static func outcome(_ random: inout SeededGenerator) -> ServerOutcome {
        random.pick([(.image, 6), (.notFound, 1), (.unavailable, 2), (.truncated, 1), (.truncatedChunked, 1), (.empty, 1),
                     (.notAnImage, 1)])
    }
}
