import Foundation

/// The rule × subject matrix, rendered as Markdown, CSV or the JSON contract:
/// `{"subjects":[{"name":…,"kind":"imago"|"mutant"|"other","expectedToFail":[…],
/// "results":[{"rule":…,"status":"pass"|"fail"|"n/a","evidence":…}]}]}`.
public struct ConformanceReport: Sendable, Codable, Equatable {
    public var subjects: [SubjectReport]

    public init(subjects: [SubjectReport]) { self.subjects = subjects }

    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    public func csv() -> String {
        var lines = ["subject,kind,rule,status,expected_to_fail,evidence"]
        for subject in subjects {
            for result in subject.results {
                let expected = subject.expectedToFail.contains(result.rule) ? "yes" : "no"
                lines.append([subject.name, subject.kind.rawValue, result.rule, result.status.rawValue, expected,
                              result.evidence].map(Self.csvField).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public func markdown() -> String {
        let rules = subjects.first?.results.map(\.rule) ?? []
        var text = "# Conformance matrix\n\n"
        text += "Rules from Docs/phase-rules.md × subjects. `pass`, `FAIL`, `n/a` (a capability the subject "
        text += "does not declare); a mutant's expected failures are marked `caught`.\n\n"
        text += "| subject | kind | verdict | " + rules.joined(separator: " | ") + " |\n"
        text += "|---|---|---|" + String(repeating: "---|", count: rules.count) + "\n"
        for subject in subjects {
            let verdict = subject.kind == .mutant
                ? (subject.meetsExpectation ? "caught as expected" : "NOT AS EXPECTED")
                : (subject.failedRules.isEmpty ? "conforms" : "FAILS")
            let cells = subject.results.map { result -> String in
                switch result.status {
                case .pass: "pass"
                case .notApplicable: "n/a"
                case .fail: subject.expectedToFail.contains(result.rule) ? "caught" : "FAIL"
                }
            }
            text += "| \(subject.name) | \(subject.kind.rawValue) | \(verdict) | " + cells.joined(separator: " | ") + " |\n"
        }
        text += "\n## Evidence of failures and exemptions\n\n"
        for subject in subjects {
            let notable = subject.results.filter { $0.status != .pass }
            guard !notable.isEmpty else { continue }
            text += "### \(subject.name)\n\n"
            for result in notable {
                text += "- **\(result.rule)** \(result.status.rawValue): \(result.evidence.replacingOccurrences(of: "|", with: "\\|"))\n"
            }
            text += "\n"
        }
        return text
    }

    static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
