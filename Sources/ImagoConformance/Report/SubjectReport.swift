/// Every rule's result for one subject.
public struct SubjectReport: Sendable, Codable, Equatable {
    /// The subject's name (``ConformanceSubject/name``).
    public let name: String
    /// Whose loader it is.
    public let kind: ConformanceSubject.Kind
    /// The rules this subject is expected to break (mutants); empty for a conforming loader.
    public let expectedToFail: [String]
    /// One result per check that ran, in run order.
    public let results: [CheckResult]
    /// The seed the model-based checks drew their sequences from (`ConformanceRunner.seed`); nil
    /// in reports written before there were model-based checks.
    public let seed: UInt64?

    /// A subject's report from its parts; `seed` defaults to nil (not recorded).
    public init(name: String, kind: ConformanceSubject.Kind, expectedToFail: [String], results: [CheckResult],
                seed: UInt64? = nil) {
        self.name = name
        self.kind = kind
        self.expectedToFail = expectedToFail
        self.results = results
        self.seed = seed
    }

    /// Rules that failed or crashed, in report order.
    public var failedRules: [String] { results.filter(\.status.isFailing).map(\.rule) }

    /// True when exactly the expected rules failed: every rule passes (or does not apply) for a
    /// conforming loader, and a mutant is caught by its expected rules and no others. A
    /// model-based check (whose failure names the rule the loader diverged on,
    /// `CheckResult.divergedRule`) need not fail (the sequences it draws may not reach the bug);
    /// when it does, it must name an expected rule, except for a mutant, whose one bug may first
    /// show in a sequence as a knock-on break of another rule. Only the checks that ran count: a run of a subset
    /// of rules judges that subset.
    public var meetsExpectation: Bool {
        let scenarios = results.filter { $0.divergedRule == nil && !ConformanceCheck.isModelBased($0.rule) }
        let failedScenarios = Set(scenarios.filter(\.status.isFailing).map(\.rule))
        let modelFailuresExpected = results.filter { ConformanceCheck.isModelBased($0.rule) && $0.status.isFailing }
            .allSatisfy { kind == .mutant || ($0.divergedRule.map(expectedToFail.contains) ?? false) }
        return modelFailuresExpected && failedScenarios == Set(expectedToFail).intersection(scenarios.map(\.rule))
    }

    /// Symptoms observed by more than one failing rule (``CheckResult/symptom``), each with
    /// those rules in report order: likely one cause behind several failures. In order of the
    /// first rule of each group.
    public var sharedSymptoms: [(symptom: String, rules: [String])] {
        var groups: [(symptom: String, rules: [String])] = []
        for result in results where result.status.isFailing {
            guard let symptom = result.symptom else { continue }
            if let index = groups.firstIndex(where: { $0.symptom == symptom }) {
                groups[index].rules.append(result.rule)
            } else {
                groups.append((symptom, [result.rule]))
            }
        }
        return groups.filter { $0.rules.count > 1 }
    }

    /// The result for `rule` (an ID such as `SHARE-2`), or nil when that check did not run.
    public func result(for rule: String) -> CheckResult? { results.first { $0.rule == rule } }
}
