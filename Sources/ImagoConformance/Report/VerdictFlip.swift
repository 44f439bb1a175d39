/// A (subject, rule) whose verdict was not the same in every run, with how often each came.
public struct VerdictFlip: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The subject's name (``ConformanceSubject/name``), as its report has it.
    public let subject: String
    /// The rule's ID, e.g. `SHARE-4`.
    public let rule: String
    /// Runs per verdict, keyed by `CheckStatus.rawValue` ("pass", "fail", "n/a", "crashed").
    public let counts: [String: Int]

    /// A flip of `rule` for `subject` with its verdict counts.
    public init(subject: String, rule: String, counts: [String: Int]) {
        self.subject = subject
        self.rule = rule
        self.counts = counts
    }

    /// `SHARE-4 on imago-data-memory: pass 17, fail 3` (verdicts in a fixed order).
    public var description: String {
        let order = [CheckStatus.pass, .fail, .crashed, .notApplicable].map(\.rawValue)
        let listed = order.compactMap { status in counts[status].map { "\(status) \($0)" } }
        return "\(rule) on \(subject): " + listed.joined(separator: ", ")
    }
}

extension ConformanceReport {
    /// One report from several runs of the same subjects and rules: each (subject, rule) keeps
    /// its first failing result (so its evidence and steps are there to read), or its first
    /// result when no run failed it, and every pair whose verdict differed becomes a flip.
    /// Subjects are matched by name and rules by ID; the first run gives the order.
    public static func combining(_ reports: [ConformanceReport]) -> ConformanceReport {
        guard let first = reports.first else { return ConformanceReport(subjects: []) }
        var flips: [VerdictFlip] = []
        let subjects = first.subjects.map { subject -> SubjectReport in
            let runs = reports.compactMap { report in report.subjects.first { $0.name == subject.name } }
            let results = subject.results.map { result -> CheckResult in
                let all = runs.compactMap { $0.result(for: result.rule) }
                let counts = Dictionary(all.map { ($0.status.rawValue, 1) }, uniquingKeysWith: +)
                if counts.count > 1 {
                    flips.append(VerdictFlip(subject: subject.name, rule: result.rule, counts: counts))
                }
                return all.first { $0.status.isFailing } ?? result
            }
            return SubjectReport(name: subject.name, kind: subject.kind, expectedToFail: subject.expectedToFail,
                                 results: results, seed: subject.seed)
        }
        return ConformanceReport(subjects: subjects, runs: reports.reduce(0) { $0 + $1.runs }, flips: flips)
    }
}
