/// Where a loader parted from the reference model: the rule the model's transition enforces,
/// the operation after which it showed, and what the model expected against what was observed.
public struct Divergence: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rule ID (Docs/phase-rules.md) the diverging expectation comes from, e.g. `TRANS-3`.
    public let rule: String
    /// The operation (from 1) after which the divergence was seen.
    public let operation: Int
    /// What the model expected, e.g. `model 1 publishes nothing more`.
    public let expected: String
    /// What the loader did, e.g. `model 1 published success(network, 64x48#1f2e3d4c)`.
    public let observed: String

    /// A divergence of `rule` after operation `operation` (from 1).
    public init(rule: String, operation: Int, expected: String, observed: String) {
        self.rule = rule
        self.operation = operation
        self.expected = expected
        self.observed = observed
    }

    /// `TRANS-3 after operation 4: expected …; observed …`.
    public var description: String {
        "\(rule) after operation \(operation): expected \(expected); observed \(observed)"
    }
}
