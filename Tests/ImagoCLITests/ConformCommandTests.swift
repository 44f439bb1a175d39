import Foundation
import XCTest

/// `imago conform` runs the real binary: the JSON contract, subject and rule selection, exit codes.
final class ConformCommandTests: XCTestCase {
    private struct Report: Decodable {
        struct Subject: Decodable {
            struct Result: Decodable {
                let rule: String
                let status: String
                let evidence: String
            }
            let name: String
            let kind: String
            let expectedToFail: [String]
            let results: [Result]
        }
        let subjects: [Subject]
    }

    func testJSONReportForAMutantAndAnImagoConfiguration() async throws {
        let run = try await CommandRunner.run(["conform", "--subject", "imago-data-memory", "--subject", "mutant-no-coalescing",
                                               "--rule", "SHARE-2", "--rule", "INIT", "--format", "json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
        XCTAssertEqual(report.subjects.map(\.name), ["imago-data-memory", "mutant-no-coalescing"])
        XCTAssertEqual(report.subjects.map(\.kind), ["imago", "mutant"])
        XCTAssertEqual(report.subjects[0].results.map(\.rule), ["INIT-1", "INIT-2", "INIT-3", "SHARE-2"])
        XCTAssertTrue(report.subjects[0].results.allSatisfy { $0.status == "pass" })
        let caught = try XCTUnwrap(report.subjects[1].results.first { $0.rule == "SHARE-2" })
        XCTAssertEqual(caught.status, "fail")
        XCTAssertTrue(caught.evidence.contains("requests 5"), caught.evidence)
        XCTAssertEqual(report.subjects[1].expectedToFail, ["SHARE-2"])
    }

    func testASubsetOfRulesJudgesOnlyThatSubset() async throws {
        // The no-coalescing mutant is expected to fail SHARE-2, which does not run here.
        let run = try await CommandRunner.run(["conform", "--subject", "mutant-no-coalescing", "--rule", "INIT", "--format", "csv"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let rows = run.stdout.split(separator: "\n")
        XCTAssertEqual(rows.first, "subject,kind,rule,status,expected_to_fail,evidence")
        XCTAssertEqual(rows.dropFirst().map { $0.split(separator: ",").prefix(4).joined(separator: ",") },
                       ["mutant-no-coalescing,mutant,INIT-1,pass", "mutant-no-coalescing,mutant,INIT-2,pass",
                        "mutant-no-coalescing,mutant,INIT-3,pass"])
        XCTAssertTrue(run.stderr.contains("as expected"), run.stderr)
    }

    func testUnknownSubjectIsAUsageError() async throws {
        let run = try await CommandRunner.run(["conform", "--subject", "nope"])
        XCTAssertEqual(run.status, 64)
        XCTAssertTrue(run.stderr.contains("unknown subject nope"), run.stderr)
    }
}
