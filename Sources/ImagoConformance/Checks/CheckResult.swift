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
    /// For a failure, what was observed in a few words, without the rule's own wording, e.g.
    /// "nothing published after a terminal phase: the new attempt was ignored" (default nil:
    /// the check named none). Rules of one subject failing with the same symptom likely share
    /// one cause; the report groups them. Absent from the JSON when nil.
    public let symptom: String?
    /// For a pass, what the check could not see, e.g. "no LifetimeProbe: only the adapter's
    /// objects were watched" (default nil: it saw everything it judges). The evidence starts
    /// with `partial: ` and this text too, so formats without the field (CSV) carry it. Absent
    /// from the JSON when nil.
    public let partial: String?
    /// For a model-based check that failed (`MODEL-…`), the rule the loader diverged on: the rule
    /// the reference model's transition enforces (e.g. `TRANS-3`). Nil otherwise (default).
    public let divergedRule: String?

    /// A result of `status` for `rule` with its evidence; `steps` defaults to none, `symptom`,
    /// `partial` and `divergedRule` to nil.
    public init(rule: String, status: CheckStatus, evidence: String, steps: [String] = [],
                symptom: String? = nil, partial: String? = nil, divergedRule: String? = nil) {
        self.rule = rule
        self.status = status
        self.evidence = evidence
        self.steps = steps
        self.symptom = symptom
        self.partial = partial
        self.divergedRule = divergedRule
    }

    private enum CodingKeys: String, CodingKey { case rule, status, evidence, steps, symptom, partial, divergedRule }

    /// Reads reports written before results carried steps (no `steps` key: none), a symptom or
    /// a partial mark (nil).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rule = try container.decode(String.self, forKey: .rule)
        status = try container.decode(CheckStatus.self, forKey: .status)
        evidence = try container.decode(String.self, forKey: .evidence)
        steps = try container.decodeIfPresent([String].self, forKey: .steps) ?? []
        symptom = try container.decodeIfPresent(String.self, forKey: .symptom)
        partial = try container.decodeIfPresent(String.self, forKey: .partial)
        divergedRule = try container.decodeIfPresent(String.self, forKey: .divergedRule)
    }

    /// `pass`, `pass (partial)`, `fail`, `n/a` or `crashed`: the verdict as text reports show it.
    public var verdictText: String {
        status == .pass && partial != nil ? "pass (partial)" : status.rawValue
    }

    /// The numbered steps as `imago conform` and the Markdown report show them, one per line:
    /// `  1. server route …` (empty when the check recorded none).
    public var numberedSteps: String {
        steps.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
    }
}

/// Thrown by `CheckRun.expect` to end a check as failed, with the symptom observed when the
/// check can name one (see ``CheckResult/symptom``); a model-based check names the rule the
/// loader diverged on.
struct CheckFailed: Error {
    let reason: String
    var symptom: String? = nil
    var divergedRule: String? = nil
}

/// Thrown by `CheckRun.notApplicable` to end a check as not applicable.
struct CheckNotApplicable: Error {
    let reason: String
}
