extension ConformanceReport {
    /// The matrix, then the evidence and steps of every result that did not pass (and of every
    /// partial pass), with the rules of a subject that failed with the same symptom grouped on a
    /// "likely the same cause" line, then (after more than one run) the flips.
    public func markdown() -> String {
        let rules = subjects.first?.results.map(\.rule) ?? []
        var text = "# Conformance matrix\n\n"
        text += "Rules from Docs/phase-rules.md × subjects. `pass`, `FAIL`, `n/a` (a capability the subject "
        text += "does not declare), `CRASHED` (the process ended during the check); a mutant's expected "
        text += "failures are marked `caught`; `pass (partial)` is a pass by what the check could see (its "
        text += "evidence says what it could not)."
        if runs > 1 { text += " \(runs) runs: a cell shows the first failing run's verdict, if any." }
        let seeds = Set(subjects.compactMap(\.seed))
        if !seeds.isEmpty {
            text += " The `MODEL-` checks drew their operation sequences from seed "
            text += seeds.sorted().map { "\($0)" }.joined(separator: ", ") + " (`imago conform --seed S` replays them)."
        }
        text += "\n\n"
        text += "| subject | kind | verdict | " + rules.joined(separator: " | ") + " |\n"
        text += "|---|---|---|" + String(repeating: "---|", count: rules.count) + "\n"
        for subject in subjects {
            let verdict = subject.kind == .mutant
                ? (subject.meetsExpectation ? "caught as expected" : "NOT AS EXPECTED")
                : (subject.failedRules.isEmpty ? "conforms" : "FAILS")
            let cells = subject.results.map { result -> String in
                switch result.status {
                case .pass: result.verdictText
                case .notApplicable: "n/a"
                case .fail: subject.expectedToFail.contains(result.rule) ? "caught" : "FAIL"
                case .crashed: "CRASHED"
                }
            }
            text += "| \(subject.name) | \(subject.kind.rawValue) | \(verdict) | " + cells.joined(separator: " | ") + " |\n"
        }
        text += "\n## Evidence of failures and exemptions\n\n"
        for subject in subjects {
            let notable = subject.results.filter { $0.status != .pass || $0.partial != nil }
            guard !notable.isEmpty else { continue }
            text += "### \(subject.name)\n\n"
            for group in subject.sharedSymptoms {
                text += "- Likely the same cause: \(group.rules.joined(separator: ", ")) all observed "
                    + "\"\(Self.escaped(group.symptom))\"; fix that first.\n"
            }
            for result in notable {
                text += "- **\(result.rule)** \(result.verdictText): \(Self.escaped(result.evidence))\n"
                // Steps explain a failure; an exemption by capability took none worth reading.
                guard result.status.isFailing else { continue }
                for (index, step) in result.steps.enumerated() {
                    text += "  \(index + 1). \(Self.escaped(step))\n"
                }
            }
            text += "\n"
        }
        if runs > 1 {
            text += "## Flips\n\n"
            text += flips.isEmpty
                ? "No verdict differed between the \(runs) runs.\n"
                : flips.map { "- \($0)\n" }.joined()
        }
        return text
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }
}
