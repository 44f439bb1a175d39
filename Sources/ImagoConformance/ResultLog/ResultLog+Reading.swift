import Foundation

extension ResultLog {
    /// The evidence of a check that started and never finished.
    public static let crashedEvidence =
        "the process ended during this check: the results log has its start line and no result"

    /// Rebuilds the report a run would have returned from the log at `url`, as far as it got:
    /// every finished check with its result, and a check that started without finishing as
    /// `crashed`. Each `subject` line starts a subject's report (a subject run twice into one
    /// log, as by `RepeatedConformanceRun`, appears twice). Checks after a crash never started,
    /// so they are absent, not failed. A torn last line (no newline) is ignored.
    public static func report(from url: URL) throws -> ConformanceReport {
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() } else if !lines.isEmpty { lines.removeLast() }
        let decoder = JSONDecoder()
        let entries = try lines.enumerated().compactMap { index, line -> ResultLogEntry? in
            guard !line.isEmpty else { return nil }
            do {
                return try decoder.decode(ResultLogEntry.self, from: Data(line.utf8))
            } catch {
                throw ResultLogError.malformedLine(url.path, line: index + 1)
            }
        }
        return report(from: entries)
    }

    /// The report `entries` describe (see `report(from:)`).
    public static func report(from entries: [ResultLogEntry]) -> ConformanceReport {
        var builder = Builder()
        for entry in entries {
            switch entry.event {
            case .subject:
                builder.finishSubject()
                builder.current = (entry, [])
            case .start:
                builder.crashPending()
                builder.pending = entry.rule
                if builder.current == nil { builder.current = (entry, []) }
            case .result:
                guard let rule = entry.rule else { continue }
                if builder.pending != rule { builder.crashPending() }
                builder.pending = nil
                if builder.current == nil { builder.current = (entry, []) }
                builder.current?.results.append(CheckResult(rule: rule, status: entry.status ?? .fail,
                                                            evidence: entry.evidence ?? "", steps: entry.steps ?? [],
                                                            divergedRule: entry.divergedRule))
            }
        }
        builder.finishSubject()
        return ConformanceReport(subjects: builder.subjects)
    }

    /// Accumulates one subject's results at a time.
    private struct Builder {
        var subjects: [SubjectReport] = []
        /// The subject line (or, in a log without one, the first line naming the subject).
        var current: (header: ResultLogEntry, results: [CheckResult])?
        /// The rule whose start line has no result line yet.
        var pending: String?

        mutating func crashPending() {
            guard let rule = pending else { return }
            current?.results.append(CheckResult(rule: rule, status: .crashed, evidence: ResultLog.crashedEvidence))
            pending = nil
        }

        mutating func finishSubject() {
            crashPending()
            guard let current else { return }
            subjects.append(SubjectReport(name: current.header.subject, kind: current.header.kind ?? .other,
                                          expectedToFail: current.header.expectedToFail ?? [], results: current.results,
                                          seed: current.header.seed))
            self.current = nil
        }
    }
}
