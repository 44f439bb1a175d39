/// How much the model-based checks explore: how many random operation sequences each one runs
/// and how long a sequence may be. The count of sequences, not a time, is the budget: a verdict
/// must not depend on how busy the machine is, and a seed must replay the same sequences.
public struct ExplorationBudget: Sendable, Hashable, CustomStringConvertible {
    /// Random sequences each model-based check runs (default 6: a few seconds per check, as CI
    /// runs every configuration; `imago conform --budget N` runs more locally).
    public var sequences: Int
    /// Operations in the longest sequence (default 14). Sequences are 4 operations or longer.
    public var maxOperations: Int
    /// Replays a failing sequence may use to shrink itself (default 32): each replay removes
    /// operations and keeps the shorter sequence when it still breaks the same rule.
    public var shrinkReplays: Int

    /// A budget of `sequences` (default 6) of at most `maxOperations` (default 14), shrunk with at
    /// most `shrinkReplays` (default 32) replays.
    public init(sequences: Int = 6, maxOperations: Int = 14, shrinkReplays: Int = 32) {
        self.sequences = max(1, sequences)
        self.maxOperations = max(4, maxOperations)
        self.shrinkReplays = max(0, shrinkReplays)
    }

    /// What CI runs: the defaults.
    public static let standard = ExplorationBudget()

    /// `6 sequences of at most 14 operations`.
    public var description: String { "\(sequences) sequences of at most \(maxOperations) operations" }
}
