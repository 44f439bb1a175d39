import Foundation
import ImagoConformance
import ImagoConformanceSubjects
import ImagoConformanceXCTest
import XCTest

/// Proof that the suite has teeth: the toy loader passes every rule it declares, and each
/// mutant of it — one real-world bug switched on — fails exactly the rules that name that bug,
/// each with evidence (a model-based check only by diverging on one of them).
@MainActor
final class MutantSelfTests: XCTestCase {
    func testTheBugFreeToyLoaderConforms() async throws {
        try await assertConforms(MutantSubjects.reference)
    }

    func testEveryMutantIsCaughtByExactlyItsRules() async throws {
        XCTAssertGreaterThanOrEqual(MutantBug.allCases.count, 12)
        for bug in MutantBug.allCases {
            let report = try await assertConforms(MutantSubjects.subject(bug))
            // The model-based checks (MODEL-…) may also catch the bug, by diverging on one of its rules.
            let scenarioFailures = report.failedRules.filter { !ConformanceCheck.isModelBased($0) }
            XCTAssertEqual(Set(scenarioFailures), Set(bug.caughtBy), "\(bug.rawValue): \(bug.summary)")
            for result in report.results where ConformanceCheck.isModelBased(result.rule) && result.status.isFailing {
                XCTAssertTrue(bug.caughtBy.contains(result.divergedRule ?? ""),
                              "\(bug.rawValue) fails \(result.rule) on \(result.divergedRule ?? "no rule"): \(result.evidence)")
            }
            for rule in bug.caughtBy {
                let evidence = report.result(for: rule)?.evidence ?? ""
                XCTAssertFalse(evidence.isEmpty, "\(bug.rawValue) fails \(rule) without evidence")
            }
        }
    }

    func testEveryRuleHasACheckAndTheReportFormatsAgree() async throws {
        let families = ["INIT", "TRANS", "CACHE", "SOURCE", "SHARE", "ERR", "RETRY", "ORDER", "PROGRESS", "MEM", "DISK", "FETCH", "HTTP", "PREVIEW"]
        for family in families {
            XCTAssertTrue(ConformanceCheck.ruleIDs.contains { $0.hasPrefix(family + "-") }, "no check for \(family)")
        }
        XCTAssertEqual(ConformanceCheck.ruleIDs.count, Set(ConformanceCheck.ruleIDs).count, "duplicate rule IDs")
        let report = ConformanceReport(subjects: [try await ConformanceRunner().only(["INIT"]).run(MutantSubjects.reference)])
        let decoded = try JSONDecoder().decode(ConformanceReport.self, from: Data(try report.json().utf8))
        XCTAssertEqual(decoded, report)
        XCTAssertTrue(try report.json().contains("\"status\" : \"pass\""))
        XCTAssertEqual(report.csv().split(separator: "\n").count, 1 + 3)
        XCTAssertTrue(report.markdown().contains("| toy-reference | other | conforms |"))
    }
}
