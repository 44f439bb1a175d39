import Foundation
import ImagoConformance
import ImagoConformanceSubjects
import XCTest

/// The results log: written line by line as checks run, read back into the report, and a
/// check that started without finishing reported as crashed.
@MainActor
final class ResultLogTests: XCTestCase {
    /// A fresh path per test (XCTest makes an instance per test method), removed afterwards.
    private lazy var logURL: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imago-result-log-\(UUID().uuidString).jsonl")
        self.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }()

    private func entries() throws -> [ResultLogEntry] {
        let text = try String(contentsOf: logURL, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(ResultLogEntry.self, from: Data($0.utf8)) }
    }

    func testEachCheckHasAStartLineThenAResultLineAndTheLogRebuildsTheReport() async throws {
        let log = try ResultLog(url: logURL)
        let returned = try await ConformanceRunner(resultLog: log).only(["INIT"]).run(MutantSubjects.reference)
        log.close()
        let lines = try entries()
        XCTAssertEqual(lines.map(\.event), [.subject, .start, .result, .start, .result, .start, .result])
        XCTAssertEqual(lines.compactMap(\.rule), ["INIT-1", "INIT-1", "INIT-2", "INIT-2", "INIT-3", "INIT-3"])
        XCTAssertEqual(lines.first?.kind, .other)
        for result in lines where result.event == .result {
            XCTAssertEqual(result.status, .pass, result.evidence ?? "")
            XCTAssertGreaterThan(result.durationMilliseconds ?? 0, 0)
            XCTAssertFalse(result.steps?.isEmpty ?? true, "\(result.rule ?? "?") logged no steps")
        }
        XCTAssertEqual(try ResultLog.report(from: logURL), ConformanceReport(subjects: [returned]))
    }

    func testEachLineIsOnDiskBeforeWhatFollowsItRuns() async throws {
        // Checks that read the log from inside their bodies: a crash there would keep this much.
        let url = logURL
        func probe(_ rule: String, expecting expected: [String]) -> ConformanceCheck {
            ConformanceCheck(rule, "reads the results log while it runs") { run in
                let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
                let seen = try lines.map { line -> String in
                    let entry = try JSONDecoder().decode(ResultLogEntry.self, from: Data(line.utf8))
                    return entry.event.rawValue + (entry.rule.map { " " + $0 } ?? "")
                }
                try run.expect(seen == expected, "log while \(rule) runs: \(seen)")
            }
        }
        let checks = [probe("PROBE-1", expecting: ["subject", "start PROBE-1"]),
                      probe("PROBE-2", expecting: ["subject", "start PROBE-1", "result PROBE-1", "start PROBE-2"])]
        let log = try ResultLog(url: url)
        let report = try await ConformanceRunner(checks: checks, resultLog: log).run(MutantSubjects.reference)
        log.close()
        XCTAssertEqual(report.results.map(\.status), [.pass, .pass], report.results.map(\.evidence).joined(separator: "\n"))
    }

    func testALogCutAfterAStartLineReportsThatCheckAsCrashed() async throws {
        let log = try ResultLog(url: logURL)
        _ = try await ConformanceRunner(resultLog: log).only(["INIT"]).run(MutantSubjects.reference)
        log.close()
        // What a crash during INIT-3 leaves: everything up to its start line, then a torn line.
        let lines = try String(contentsOf: logURL, encoding: .utf8).split(separator: "\n")
        let kept = lines.prefix(6).joined(separator: "\n") + "\n" + lines[6].prefix(20)
        try Data(kept.utf8).write(to: logURL)

        let report = try ResultLog.report(from: logURL)
        let subject = try XCTUnwrap(report.subjects.first)
        XCTAssertEqual(subject.results.map(\.rule), ["INIT-1", "INIT-2", "INIT-3"])
        XCTAssertEqual(subject.results.map(\.status), [.pass, .pass, .crashed])
        XCTAssertEqual(subject.result(for: "INIT-3")?.evidence, ResultLog.crashedEvidence)
        XCTAssertEqual(subject.failedRules, ["INIT-3"])
        XCTAssertFalse(subject.meetsExpectation)
        XCTAssertTrue(report.markdown().contains("| toy-reference | other | FAILS | pass | pass | CRASHED |"), report.markdown())
        XCTAssertTrue(report.csv().contains("toy-reference,other,INIT-3,crashed,no,"), report.csv())
        XCTAssertTrue(try report.json().contains("\"status\" : \"crashed\""))
    }

    func testAMalformedLineBeforeTheLastIsAnError() async throws {
        try Data("{\"event\":\"subject\",\"subject\":\"x\"}\nnot json\n".utf8).write(to: logURL)
        XCTAssertThrowsError(try ResultLog.report(from: logURL)) { error in
            XCTAssertEqual("\(error)", "results log \(logURL.path): line 2 is not a result log entry")
        }
    }

    func testAppendingAfterCloseThrows() async throws {
        let log = try ResultLog(url: logURL)
        log.close()
        XCTAssertThrowsError(try log.append(ResultLogEntry(event: .start, subject: "x", rule: "INIT-1")))
    }
}
