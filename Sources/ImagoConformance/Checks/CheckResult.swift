/// The verdict of one rule for one subject.
public enum CheckStatus: String, Sendable, Codable {
    /// The loader did what the rule asks.
    case pass
    /// The loader broke the rule; the evidence says what was observed and what to change.
    case fail
    /// The subject lacks a declared capability the rule needs (the evidence names it), or
    /// declared a profile that the rule exempts.
    case notApplicable = "n/a"
    /// The check started and the process ended before it finished (a loader crashed it). Only
    /// a report rebuilt from a `ResultLog` can say this; it counts as failing.
    case crashed

    /// Whether the verdict breaks the rule: `fail` and `crashed`.
    public var isFailing: Bool { self == .fail || self == .crashed }
}

/// One rule's outcome with what was observed (phase sequences, request and decode counts,
/// bytes) and the numbered steps the check took on the loader to get there.
public struct CheckResult: Sendable, Codable, Equatable {
    /// The rule's ID, e.g. `SHARE-2` (Docs/phase-rules.md).
    public let rule: String
    /// Pass, fail, n/a or crashed; ``CheckStatus/isFailing`` says whether it breaks the rule.
    public let status: CheckStatus
    /// What was observed (phase sequences, request and decode counts, bytes), and for a failure
    /// what the loader should do instead.
    public let evidence: String
    /// Every action the check took, in order: loaders created and released, models created
    /// (with their source), `load()`, `cancel()`, `retry()`, `setSource(_:)`, observers
    /// attached, cache probes used, server gates opened (default empty).
    public let steps: [String]
    /// For a model-based check that failed (`MODEL-…`), the rule the loader diverged on: the rule
    /// the reference model's transition enforces (e.g. `TRANS-3`). Nil otherwise (default).
    public let divergedRule: String?

    /// A result of `status` for `rule` with its evidence; `steps` defaults to none and
    /// `divergedRule` to nil.
    public init(rule: String, status: CheckStatus, evidence: String, steps: [String] = [], divergedRule: String? = nil) {
        self.rule = rule
        self.status = status
        self.evidence = evidence
        self.steps = steps
        self.divergedRule = divergedRule
    }

    private enum CodingKeys: String, CodingKey { case rule, status, evidence, steps, divergedRule }

    /// Reads reports written before results carried steps (no `steps` key: none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rule = try container.decode(String.self, forKey: .rule)
        status = try container.decode(CheckStatus.self, forKey: .status)
        evidence = try container.decode(String.self, forKey: .evidence)
        steps = try container.decodeIfPresent([String].self, forKey: .steps) ?? []
        divergedRule = try container.decodeIfPresent(String.self, forKey: .divergedRule)
    }
}

/// Thrown by `CheckRun.expect` to end a check as failed; a model-based check names the rule the
/// loader diverged on.
struct CheckFailed: Error {
    let reason: String
    var divergedRule: String? = nil
}

/// Thrown by `CheckRun.notApplicable` to end a check as not applicable.
struct CheckNotApplicable: Error {
    let reason: String
}
