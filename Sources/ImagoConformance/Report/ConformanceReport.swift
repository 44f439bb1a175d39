import Foundation

/// The rule × subject matrix, rendered as Markdown, CSV or the JSON contract:
/// `{"subjects":[{"name":…,"kind":"imago"|"mutant"|"other","expectedToFail":[…],
/// "results":[{"rule":…,"status":"pass"|"fail"|"n/a"|"crashed","evidence":…,"steps":[…]}]}],
/// "runs":N,"flips":[{"subject":…,"rule":…,"counts":{"pass":17,"fail":3}}]}`.
public struct ConformanceReport: Sendable, Codable, Equatable {
    /// One report per subject, in the order they ran.
    public var subjects: [SubjectReport]
    /// How many times the subjects were run (default 1). With more than one run (see
    /// `RepeatedConformanceRun`) each result is the first failing one of its (subject, rule)
    /// across the runs, or the first one when none failed.
    public var runs: Int
    /// The (subject, rule) pairs whose verdict differed between runs (default empty).
    public var flips: [VerdictFlip]

    /// A report of `subjects` after `runs` runs (default 1) with the verdicts that flipped
    /// (default none).
    public init(subjects: [SubjectReport], runs: Int = 1, flips: [VerdictFlip] = []) {
        self.subjects = subjects
        self.runs = runs
        self.flips = flips
    }

    private enum CodingKeys: String, CodingKey { case subjects, runs, flips }

    /// Reads reports written before `runs` and `flips` existed (one run, no flips).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        subjects = try container.decode([SubjectReport].self, forKey: .subjects)
        runs = try container.decodeIfPresent(Int.self, forKey: .runs) ?? 1
        flips = try container.decodeIfPresent([VerdictFlip].self, forKey: .flips) ?? []
    }

    /// True when every subject failed exactly its expected rules and no verdict flipped.
    public var meetsExpectation: Bool { flips.isEmpty && subjects.allSatisfy(\.meetsExpectation) }

    /// The report as the JSON contract above: pretty-printed, keys sorted, slashes unescaped,
    /// ending in a newline. Throws only if encoding fails.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// One line per (subject, rule) under the header
    /// `subject,kind,rule,status,expected_to_fail,evidence`, fields quoted as RFC 4180 asks;
    /// steps are left out.
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

    static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
