import Foundation
import ImagoConformance
import ImagoConformanceSubjects
import ImagoConformanceXCTest
import XCTest

/// Proof that the suite has teeth: the toy loader passes every rule it declares, and each
/// mutant of it — one real-world bug switched on — fails exactly the rules that name that bug,
/// each with evidence; a model-based check may also catch it, naming the rule it diverged on.
@MainActor
final class MutantSelfTests: XCTestCase {
    func testTheBugFreeToyLoaderConforms() async throws {
        try await assertConforms(MutantSubjects.reference)
    }

    /// The mutants' runner: one fixed seed, so a failure here replays with `imago conform --seed
    /// 2024`, and 4 shrink replays, not 32. A mutant may fail a model-based check (on a named
    /// rule), and each shrink replay that still diverges waits out the check's patience (5 s):
    /// with 32, shrinking was about half of this test's 4.5 minutes in CI. How well a divergence
    /// shrinks is `ModelBasedCheckTests.shrinking`'s question.
    static let mutantRunner = ConformanceRunner(seed: 2024, budget: ExplorationBudget(shrinkReplays: 4))

    func testEveryMutantIsCaughtByExactlyItsRules() async throws {
        XCTAssertGreaterThanOrEqual(MutantBug.allCases.count, 12)
        for bug in MutantBug.allCases {
            let report = try await assertConforms(MutantSubjects.subject(bug), runner: Self.mutantRunner)
            let scenarioFailures = report.results.filter { $0.status.isFailing && !ConformanceCheck.isModelBased($0.rule) }
            XCTAssertEqual(Set(scenarioFailures.map(\.rule)), Set(bug.caughtBy), "\(bug.rawValue): \(bug.summary)")
            for result in report.results where ConformanceCheck.isModelBased(result.rule) && result.status.isFailing {
                XCTAssertNotNil(result.divergedRule, "\(bug.rawValue): \(result.rule) failed without naming a rule: \(result.evidence)")
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
