import ImagoConformance
import XCTest

/// Runs every conformance check (or those of `rules`: IDs like "SHARE-2" or families like
/// "DISK") against `subject` and fails the calling test once per rule whose outcome differs
/// from the subject's expectation, with the rule's evidence; a model-based check fails it only
/// when it diverged on a rule not expected to fail. Returns the report.
///
/// Linux XCTest does not run test methods inherited from a base class in another module, so
/// call this from an explicit test method of your own (`MyLoaderAdapter` is your
/// `LoaderUnderTest`; Examples/BlogLoader has a complete one):
/// ```swift
/// @MainActor func testMyLoaderConforms() async throws {
///     try await assertConforms(ConformanceSubject(name: "my-loader", capabilities: [.memoryCache]) { context in
///         try MyLoaderAdapter(context: context)
///     })
/// }
/// ```
@MainActor
@discardableResult
public func assertConforms(_ subject: ConformanceSubject, rules: [String]? = nil,
                           runner: ConformanceRunner = ConformanceRunner(),
                           file: StaticString = #filePath, line: UInt = #line) async throws -> SubjectReport {
    let selected = rules.map { runner.only($0) } ?? runner
    let report = try await selected.run(subject)
    let expected = Set(subject.expectedToFail)
    for result in report.results {
        // A model-based check (MODEL-…) draws random sequences: it may fail by diverging on an
        // expected rule (`CheckResult.divergedRule`), and need not fail (`SubjectReport.meetsExpectation`).
        if ConformanceCheck.isModelBased(result.rule), !expected.contains(result.rule) {
            if result.status.isFailing, !expected.contains(result.divergedRule ?? "") {
                XCTFail("\(subject.name) breaks \(result.rule): \(result.evidence)", file: file, line: line)
            }
            continue
        }
        switch (result.status, expected.contains(result.rule)) {
        case (.fail, false), (.crashed, false):
            XCTFail("\(subject.name) breaks \(result.rule): \(result.evidence)", file: file, line: line)
        case (.pass, true), (.notApplicable, true):
            XCTFail("\(subject.name) was expected to fail \(result.rule) but it \(result.status.rawValue): \(result.evidence)",
                    file: file, line: line)
        default:
            break
        }
    }
    return report
}
