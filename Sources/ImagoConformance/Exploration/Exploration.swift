/// The driver of a model-based check: random operation sequences from a seeded generator, each
/// replayed against the loader and the reference model together, and the first one that
/// diverges shrunk to a short sequence that still breaks the same rule (QuickCheck's and
/// Hypothesis' stateful testing, with a delta-debugging shrinker: remove a run of operations,
/// keep the shorter sequence if it still fails).
extension CheckRun {
    /// Runs `budget.sequences` sequences (times `scale`, default 1, for a check whose sequences
    /// are a few times cheaper than a phase sequence) made by `generate` (given this check's seeded
    /// generator and the budget's longest length) through `replay`, which must run one sequence from a
    /// clean start (fresh loaders and routes; `trial` numbers the replays, so each can name its
    /// routes apart) and return the first divergence from the model, or nil. The first failing
    /// sequence is shrunk and the check fails with its rule, the numbered operations and the
    /// seed that replays it; the steps reported are the shortest replay's.
    public func explore<Operation: Sendable & CustomStringConvertible>(
        sequencesPerBudgetSequence scale: Int = 1,
        generate: (inout SeededGenerator, Int) -> [Operation],
        replay: ([Operation], Int) async throws -> Divergence?
    ) async throws {
        var generator = SeededGenerator(seed: SeededGenerator.seed(seed, for: rule))
        var trial = 0
        let sequences = budget.sequences * max(1, scale)
        for sequence in 1...sequences {
            let operations = generate(&generator, budget.maxOperations)
            trial += 1
            beginTrial()
            guard let divergence = try await replay(operations, trial) else { continue }
            var shortest = (operations: operations, divergence: divergence, steps: steps)
            var replays = 0
            var chunk = max(1, operations.count / 2)
            // Delta debugging: try removing each run of `chunk` operations, halving the run once no
            // removal of that size still fails; stop at single operations or out of replays.
            while replays < budget.shrinkReplays {
                var removedOne = false
                var start = 0
                while start < shortest.operations.count, replays < budget.shrinkReplays {
                    var candidate = shortest.operations
                    candidate.removeSubrange(start..<min(start + chunk, candidate.count))
                    guard !candidate.isEmpty else { start += chunk; continue }
                    replays += 1
                    trial += 1
                    beginTrial()
                    if let again = try await replay(candidate, trial), again.rule == shortest.divergence.rule {
                        shortest = (candidate, again, steps)
                        removedOne = true
                    } else {
                        start += chunk
                    }
                }
                if !removedOne {
                    if chunk == 1 { break }
                    chunk = max(1, chunk / 2)
                }
            }
            restoreSteps(shortest.steps)
            let numbered = shortest.operations.enumerated().map { "\($0.offset + 1). \($0.element)" }
            throw CheckFailed(reason: """
                \(shortest.divergence.rule) (model): after operation \(shortest.divergence.operation), expected \
                \(shortest.divergence.expected); observed \(shortest.divergence.observed). Operations: \
                \(numbered.joined(separator: "  ")). Sequence \(sequence) of \(sequences), shrunk from \
                \(operations.count) to \(shortest.operations.count) operations in \(replays) replays; replay it with \
                `imago conform --seed \(seed) --subject \(subject.name) --rule \(rule)`
                """, divergedRule: shortest.divergence.rule)
        }
        note("\(sequences) sequences (seed \(seed)) agreed with the model")
    }
}
