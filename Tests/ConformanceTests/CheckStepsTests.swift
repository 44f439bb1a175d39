import ImagoConformance
import ImagoConformanceSubjects
import XCTest

/// The steps a check took are recorded by the wrappers around the loader and its models, and
/// shown with a failure.
@MainActor
final class CheckStepsTests: XCTestCase {
    /// Fails unless `expected` occur in `steps` in this order, each as the prefix of a step.
    private func assertInOrder(_ expected: [String], in steps: [String], file: StaticString = #filePath, line: UInt = #line) {
        var remaining = steps[...]
        for prefix in expected {
            guard let index = remaining.firstIndex(where: { $0.hasPrefix(prefix) }) else {
                return XCTFail("no step \"\(prefix)…\" in order in:\n" + steps.joined(separator: "\n"), file: file, line: line)
            }
            remaining = remaining[remaining.index(after: index)...]
        }
    }

    func testAFailureListsTheStepsThatLedToIt() async throws {
        let subject = MutantSubjects.subject(.cancellationPublishedAsFailure)
        let report = try await ConformanceRunner().only(["TRANS-4"]).run(subject)
        let result = try XCTUnwrap(report.result(for: "TRANS-4"))
        XCTAssertEqual(result.status, .fail, result.evidence)
        assertInOrder([
            "server route /trans-4/held.png: ", "loader 1 created on context-1",
            "model 1 created on loader 1 for /trans-4/held.png → empty", "model 1: observer attached",
            "model 1: load() → loading", "model 1: cancel() → ", "gate of /trans-4/held.png opened",
            "settle window", "loader 1 released by the check",
        ], in: result.steps)

        let markdown = ConformanceReport(subjects: [report]).markdown()
        let cancelStep = try XCTUnwrap(result.steps.firstIndex { $0.hasPrefix("model 1: cancel()") })
        XCTAssertTrue(markdown.contains("\n  \(cancelStep + 1). \(result.steps[cancelStep])\n"), markdown)
    }

    /// The recording wrapper must forward the model's stream: a wrapper that left `phases` to
    /// the protocol's default (nil) would make ORDER-2 pass a stream that never replays.
    func testTheModelsStreamReachesTheChecksThroughTheWrapper() async throws {
        let subject = ImagoSubjects.subject(strategy: .data, caches: .none)
        let report = try await ConformanceRunner().only(["ORDER-2"]).run(subject)
        let result = try XCTUnwrap(report.result(for: "ORDER-2"))
        XCTAssertEqual(result.status, .pass, result.evidence)
        XCTAssertTrue(result.steps.contains { $0.hasSuffix("phases stream subscribed") }, result.steps.joined(separator: "\n"))
    }

    func testGateOpeningsAndSettleWaitsAreSteps() async throws {
        let report = try await ConformanceRunner().only(["SHARE-1"]).run(MutantSubjects.reference)
        let result = try XCTUnwrap(report.result(for: "SHARE-1"))
        XCTAssertEqual(result.status, .pass, result.evidence)
        assertInOrder([
            "server route /share-1/a.png: ", "model 1: load()", "model 1: load()", "model 1: load()",
            "gate of /share-1/a.png opened",
        ], in: result.steps)
        XCTAssertTrue(result.steps.first!.contains("(head held by a gate)"), result.steps.first!)
    }
}
