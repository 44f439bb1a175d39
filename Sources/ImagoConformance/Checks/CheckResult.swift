/// The verdict of one rule for one subject.
public enum CheckStatus: String, Sendable, Codable {
    case pass
    case fail
    /// The subject lacks a declared capability the rule needs (the evidence names it), or
    /// declared a profile that the rule exempts.
    case notApplicable = "n/a"
}

/// One rule's outcome with what was observed: phase sequences, request and decode counts, bytes.
public struct CheckResult: Sendable, Codable, Equatable {
    public let rule: String
    public let status: CheckStatus
    public let evidence: String

    public init(rule: String, status: CheckStatus, evidence: String) {
        self.rule = rule
        self.status = status
        self.evidence = evidence
    }
}

/// Thrown by `CheckRun.expect` to end a check as failed.
struct CheckFailed: Error {
    let reason: String
}

/// Thrown by `CheckRun.notApplicable` to end a check as not applicable.
struct CheckNotApplicable: Error {
    let reason: String
}
