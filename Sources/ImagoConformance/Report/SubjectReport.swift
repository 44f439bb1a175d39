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

    /// A subject's report from its parts.
    public init(name: String, kind: ConformanceSubject.Kind, expectedToFail: [String], results: [CheckResult]) {
        self.name = name
        self.kind = kind
        self.expectedToFail = expectedToFail
        self.results = results
    }

    /// Rules that failed or crashed, in report order.
    public var failedRules: [String] { results.filter(\.status.isFailing).map(\.rule) }

    /// True when exactly the expected rules failed: every rule passes (or does not apply) for a
    /// conforming loader, and a mutant is caught by its expected rules and no others.
    /// Only the rules that ran count: a run of a subset of rules judges that subset.
    public var meetsExpectation: Bool {
        Set(failedRules) == Set(expectedToFail).intersection(results.map(\.rule))
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
