/// One line of a results log (JSON, one object per line, keys sorted):
/// - `{"event":"subject","subject":…,"kind":…,"expectedToFail":[…],"seed":…}` before a subject's checks;
/// - `{"event":"start","subject":…,"rule":…}` before each check;
/// - `{"event":"result","subject":…,"rule":…,"status":…,"evidence":…,"steps":[…],"durationMilliseconds":…}`
///   after it (with `"divergedRule":…` for a failed model-based check).
public struct ResultLogEntry: Sendable, Codable, Equatable {
    /// Which kind of line it is.
    public enum Event: String, Sendable, Codable {
        /// `subject` opens a subject, `start` comes before a check, `result` after it.
        case subject, start, result
    }

    /// Which of the three lines this is; it decides which optional fields are set.
    public var event: Event
    /// The subject's name, on every line.
    public var subject: String
    /// `subject` lines only.
    public var kind: ConformanceSubject.Kind?
    /// `subject` lines only.
    public var expectedToFail: [String]?
    /// `subject` lines: the seed of the model-based checks (``SubjectReport/seed``); absent in
    /// logs written before them.
    public var seed: UInt64?
    /// `start` and `result` lines.
    public var rule: String?
    /// `result` lines only, as are the fields below.
    public var status: CheckStatus?
    /// `result` lines: what was observed (``CheckResult/evidence``).
    public var evidence: String?
    /// `result` lines: the steps the check took (``CheckResult/steps``).
    public var steps: [String]?
    /// Wall time the check took, from its `start` line to its `result` line.
    public var durationMilliseconds: Double?
    /// `result` lines of a failed model-based check: the rule it diverged on (``CheckResult/divergedRule``).
    public var divergedRule: String?

    /// A line from its fields; each optional one defaults to absent (left out of the JSON).
    public init(event: Event, subject: String, kind: ConformanceSubject.Kind? = nil, expectedToFail: [String]? = nil,
                rule: String? = nil, status: CheckStatus? = nil, evidence: String? = nil, steps: [String]? = nil,
                durationMilliseconds: Double? = nil, seed: UInt64? = nil, divergedRule: String? = nil) {
        self.seed = seed
        self.divergedRule = divergedRule
        self.event = event
        self.subject = subject
        self.kind = kind
        self.expectedToFail = expectedToFail
        self.rule = rule
        self.status = status
        self.evidence = evidence
        self.steps = steps
        self.durationMilliseconds = durationMilliseconds
    }

    static func subject(_ subject: ConformanceSubject, seed: UInt64) -> ResultLogEntry {
        ResultLogEntry(event: .subject, subject: subject.name, kind: subject.kind, expectedToFail: subject.expectedToFail,
                       seed: seed)
    }

    static func start(_ subject: ConformanceSubject, _ rule: String) -> ResultLogEntry {
        ResultLogEntry(event: .start, subject: subject.name, rule: rule)
    }

    static func result(_ subject: ConformanceSubject, _ result: CheckResult, _ duration: Duration) -> ResultLogEntry {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return ResultLogEntry(event: .result, subject: subject.name, rule: result.rule, status: result.status,
                              evidence: result.evidence, steps: result.steps, durationMilliseconds: milliseconds,
                              divergedRule: result.divergedRule)
    }
}
