import Foundation
import ImagoConformance
import XCTest

/// `imago conform --jsonl` keeps what ran before a crash, and `--repeat` reports flips.
final class ConformStreamingTests: XCTestCase {
    func testALoaderThatKillsTheProcessLeavesALogNamingTheCrashedCheck() async throws {
        // The child's TMPDIR: a crashed run cannot remove its check directories, so they go here.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imago-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let log = scratch.appendingPathComponent("results.jsonl")
        // crash-on-load calls fatalError in load() with a source: INIT-1 and INIT-2 finish, INIT-3
        // dies. No symbolication (SWIFT_BACKTRACE): the crash ends the process at once.
        let run = try await CommandRunner.run(["conform", "--subject", "crash-on-load", "--rule", "INIT", "--jsonl", log.path],
                                              environment: ["SWIFT_BACKTRACE": "enable=no", "TMPDIR": scratch.path])
        XCTAssertNotNil(run.signal, "ended by a signal: \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("crash-on-load: deliberate crash loading /init-3/"), run.stderr)

        let report = try ResultLog.report(from: log)
        XCTAssertEqual(report.subjects.map(\.name), ["crash-on-load"])
        let results = try XCTUnwrap(report.subjects.first?.results)
        XCTAssertEqual(results.map(\.rule), ["INIT-1", "INIT-2", "INIT-3"])
        XCTAssertEqual(results.map(\.status), [.pass, .pass, .crashed])
        XCTAssertEqual(results.last?.evidence, ResultLog.crashedEvidence)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        XCTAssertTrue(leftovers.contains { $0.hasPrefix("imago-conformance-") }, "the child did not use TMPDIR: \(leftovers)")
    }

    func testRepeatRunsEverySubjectThatManyTimesAndReportsNoFlipsWhenVerdictsAgree() async throws {
        let run = try await CommandRunner.run(["conform", "--subject", "toy-reference", "--subject", "mutant-no-coalescing",
                                               "--rule", "INIT-1", "--rule", "SHARE-2", "--repeat", "2", "--format", "json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try JSONDecoder().decode(ConformanceReport.self, from: Data(run.stdout.utf8))
        XCTAssertEqual(report.runs, 2)
        XCTAssertEqual(report.flips, [])
        XCTAssertEqual(report.subjects.map(\.name), ["toy-reference", "mutant-no-coalescing"])
        XCTAssertEqual(report.subjects[1].failedRules, ["SHARE-2"])
        for line in ["run 1/2 toy-reference", "run 1/2 mutant-no-coalescing", "run 2/2 toy-reference",
                     "run 2/2 mutant-no-coalescing", "no verdict differed between the 2 runs"] {
            XCTAssertTrue(run.stderr.contains(line), "\(line) missing from:\n\(run.stderr)")
        }
    }

    func testRepeatBelowOneIsAUsageError() async throws {
        let run = try await CommandRunner.run(["conform", "--repeat", "0"])
        XCTAssertEqual(run.status, 64)
        XCTAssertTrue(run.stderr.contains("--repeat must be at least 1"), run.stderr)
    }
}
