@testable import ImagoConformance
import ImagoConformanceSubjects
import Testing

/// The model-based checks' parts: the seeded generator, the reference model of the phase rules,
/// the shrinker, and MODEL-PHASES against loaders with known bugs.
@Suite("Model-based checks")
struct ModelBasedCheckTests {
    @Test("a seed gives the same numbers in every process, and each check its own stream")
    func seedsAreStable() {
        var first = SeededGenerator(seed: 42)
        var second = SeededGenerator(seed: 42)
        #expect((0..<8).map { _ in first.next() } == (0..<8).map { _ in second.next() })
        // Pinned: a change here breaks every seed users have written down.
        var pinned = SeededGenerator(seed: 0)
        #expect(pinned.next() == 0xE220_A839_7B1D_CDAF)
        #expect(SeededGenerator.seed(1, for: "MODEL-PHASES") == SeededGenerator.seed(1, for: "MODEL-PHASES"))
        #expect(SeededGenerator.seed(1, for: "MODEL-PHASES") != SeededGenerator.seed(1, for: "MODEL-HTTP"))
    }

    @Test("the same seed generates the same operation sequence")
    func sequencesReplay() {
        var first = SeededGenerator(seed: 7)
        var second = SeededGenerator(seed: 7)
        let capabilities: LoaderCapabilities = [.memoryCache, .diskCache]
        let a = PhaseSequences.generate(&first, maxOperations: 14, capabilities: capabilities)
        let b = PhaseSequences.generate(&second, maxOperations: 14, capabilities: capabilities)
        #expect(a == b)
        #expect(a.count >= 7 && a.count <= 14)
        #expect(a.first == .appear(.a))
    }

    @Test("a loader with several fetch strategies gets one per sequence, chosen before any model")
    func fetchStrategies() {
        let capabilities: LoaderCapabilities = [.selectableFetchStrategy, .decodesWhileStreaming]
        var chosen: Set<LoaderContext.FetchStrategy> = []
        for seed in 0..<24 {
            var random = SeededGenerator(seed: UInt64(seed))
            let operations = PhaseSequences.generate(&random, maxOperations: 8, capabilities: capabilities)
            guard case .fetchWith(let strategy) = operations.first else {
                Issue.record("sequence \(seed) starts with \(String(describing: operations.first))")
                continue
            }
            chosen.insert(strategy)
            #expect(operations.dropFirst().first == .appear(.a))
        }
        #expect(chosen == [.data, .file, .stream])
        var model = PhaseModel(capabilities: capabilities)
        #expect(model.apply(.fetchWith(.stream)).skipped == nil)
        _ = model.apply(.appear(.a))
        // Once a model exists the loader is made: a shrunk sequence that moved it is skipped.
        #expect(model.apply(.fetchWith(.file)).skipped != nil)
    }

    @Test("previews within an attempt must gain detail and fit the image; a new attempt starts over")
    func previewsWithinAnAttempt() {
        let image = [ImageFingerprint(width: 320, height: 240, digest: "")]
        func loading(_ detail: Int?, _ width: Int = 40) -> ObservedPhase {
            .loading(received: nil, expected: nil, previous: nil,
                     preview: detail.map { ObservedPreview(detail: $0, width: width, height: 30) })
        }
        let sound: [ObservedPhase] = [.empty, loading(nil), loading(1), loading(1), loading(3), .empty, loading(1), loading(2)]
        #expect(AttemptProblems.previews(sound, largest: image) == nil)
        #expect(AttemptProblems.previews([loading(2), loading(1)], largest: image) == "preview 2 40x30, then preview 1 40x30")
        #expect(AttemptProblems.previews([loading(1, 640)], largest: image) == "preview 1 640x30 is larger than the image")
        #expect(AttemptProblems.progress([.loading(received: 10, expected: 20, previous: nil),
                                          .loading(received: 5, expected: 20, previous: nil)]) == "received 10, then 5")
    }

    @Test("coalesced loads make one request and one decode; each subscriber gets the image")
    func coalescing() {
        var model = PhaseModel(capabilities: [.memoryCache])
        for operation: PhaseOperation in [.appear(.a), .appear(.a), .load(model: 1), .load(model: 2)] { _ = model.apply(operation) }
        #expect(model.requests[.a] == 1)
        let joined = model.apply(.load(model: 2))
        #expect(joined.requestRule == "SHARE-1")
        _ = model.apply(.respond(.a, .image))
        #expect(model.decodes == 1...1)
        #expect(model.memory == [.a])
        for number in 0..<2 {
            #expect(model.models[number].expected.map(\.phase) == [.empty, .loading, .success(.network, .a)])
        }
    }

    @Test("work every subscriber left is closed, and the next load asks again under SHARE-4")
    func abandonedWork() {
        var model = PhaseModel(capabilities: [])
        for operation: PhaseOperation in [.appear(.a), .appear(.a), .load(model: 1), .load(model: 2), .cancel(model: 1)] {
            _ = model.apply(operation)
        }
        #expect(model.abandonedRequests == 0)
        _ = model.apply(.cancel(model: 2))
        #expect(model.abandonedRequests == 1)
        #expect(model.closeRule == "SHARE-3")
        let again = model.apply(.load(model: 1))
        #expect(again.requestRule == "SHARE-4")
        #expect(model.requests[.a] == 2)
        _ = model.apply(.setSource(model: 1, .b))
        #expect(model.closeRule == "SOURCE-1")
        #expect(model.models[0].silence == "SOURCE-1")
    }

    @Test("a memory hit after a failure goes through loading (TRANS-2), from empty it does not (CACHE-1)")
    func memoryHits() {
        var model = PhaseModel(capabilities: [.memoryCache])
        for operation: PhaseOperation in [.appear(.a), .load(model: 1), .respond(.a, .notFound), .appear(.a), .load(model: 2),
                                          .respond(.a, .image), .retry(model: 1), .appear(.a), .load(model: 3)] {
            _ = model.apply(operation)
        }
        #expect(model.models[0].expected.map(\.phase)
            == [.empty, .loading, .failure(.httpStatus(404)), .loading, .success(.memory, .a)])
        #expect(model.models[0].expected.last?.rule == "CACHE-1")
        #expect(model.models[2].expected.map(\.phase) == [.empty, .success(.memory, .a)])
        #expect(model.requests[.a] == 2)
    }

    @Test("operations on a model that does not exist are skipped, and a declared profile changes the expectation")
    func unsettledAndProfiles() {
        var model = PhaseModel(capabilities: [])
        _ = model.apply(.appear(nil))
        _ = model.apply(.load(model: 1))
        #expect(model.models[0].phase == .failure(.missingSource))
        // A second load() without a source fails again (INIT-2 holds for every load()).
        #expect(model.apply(.load(model: 1)).skipped == nil)
        #expect(model.models[0].expected.map(\.phase) == [.empty, .failure(.missingSource), .failure(.missingSource)])
        #expect(model.apply(.cancel(model: 9)).skipped != nil)
        var quiet = PhaseModel(capabilities: [.staysEmptyWithoutSource])
        _ = quiet.apply(.appear(nil))
        _ = quiet.apply(.load(model: 1))
        #expect(quiet.models[0].expected.map(\.phase) == [.empty])
    }

    @Test("a failing sequence is shrunk to the operations that matter, with its rule and seed")
    @MainActor
    func shrinking() async throws {
        let check = ConformanceCheck("MODEL-SHRINK", "fails when 3 and 7 both occur") { run in
            try await run.explore(
                generate: { random, _ in (0..<12).map { _ in Int.random(in: 0..<10, using: &random) } + [3, 7] },
                replay: { operations, _ in
                    guard let three = operations.firstIndex(of: 3), let seven = operations[three...].firstIndex(of: 7) else { return nil }
                    return Divergence(rule: "TRANS-1", operation: seven + 1, expected: "no 7 after a 3", observed: "one")
                })
        }
        let subject = MutantSubjects.reference
        let report = try await ConformanceRunner(checks: [check], seed: 99).run(subject)
        let result = try #require(report.result(for: "MODEL-SHRINK"))
        #expect(result.status == .fail)
        #expect(result.divergedRule == "TRANS-1")
        #expect(result.evidence.contains("Operations: 1. 3  2. 7. "), "\(result.evidence)")
        #expect(result.evidence.contains("--seed 99"))
        #expect(report.seed == 99)
    }

    @Test("MODEL-PHASES catches known bugs under a rule they break, and passes the reference loader",
          arguments: ["mutant-failures-cached", "mutant-publishes-off-main-actor", "mutant-error-body-decoded",
                      "mutant-is-loading-guard", "toy-reference"])
    @MainActor
    func catchesKnownBugs(subjectName: String) async throws {
        let subject = try #require((MutantSubjects.all + [MutantSubjects.reference]).first { $0.name == subjectName })
        let runner = ConformanceRunner(checks: [phaseModelCheck], seed: 7, budget: ExplorationBudget(sequences: 30))
        let report = try await runner.run(subject)
        let result = try #require(report.result(for: "MODEL-PHASES"))
        if subject.expectedToFail.isEmpty {
            #expect(result.status == .pass, "\(result.evidence)")
        } else {
            #expect(result.status == .fail, "\(result.evidence)")
            #expect(result.divergedRule.map(subject.expectedToFail.contains) == true,
                    "diverged on \(result.divergedRule ?? "nothing"), expected one of \(subject.expectedToFail): \(result.evidence)")
        }
        #expect(report.meetsExpectation)
    }
}

/// The reference disk cache's latitude over eviction order.
@Suite struct ReferenceDiskCacheTests {
    /// The sequence a seeded MODEL-DISK run shrank to (seed 11638623793844408922): images 6, 7
    /// and 1 stored, 6 corrupted, 0 stored over the limit. Corrupting rewrote 6's file, which
    /// Imago's order (payload mtimes) counts as a use, so it evicted 7: the model must not hold 7
    /// certain, while a key no order can have evicted stays certain.
    @Test func aCorruptedEntryMayCountAsTheMostRecentUse() {
        var cache = ReferenceDiskCache(sizeLimit: 36_655, payloadSizes: [0: 4_083, 1: 4_142, 6: 7_385, 7: 21_234])
        for key in [6, 7, 1] { cache.stored(key) }
        cache.corrupted(6)
        #expect(cache.entry(6) == .corrupt)
        cache.stored(0)
        #expect(cache.entry(7) == .maybe)
        #expect(cache.entry(0) == .held(repaired: false))
        #expect(cache.entry(1) == .held(repaired: false))
    }
}
