import ImagoConformance
import ImagoConformanceSubjects
import Testing

/// `.reloadsOnSourceChange` (AsyncImage's source-change profile): the toy loader with the
/// profile passes every rule that changes sources, both ways the profile allows; its mutants are
/// caught by exactly their rules; and the same loader without the declaration fails the rules
/// the profile changes, so the declaration is what the verdicts turn on.
@MainActor
@Suite(.serialized) struct ReloadingProfileTests {
    /// Every check that calls `setSource(_:)`, and the cancel and hit rules next to them.
    static let sourceChangingRules = ["TRANS-2", "TRANS-3", "TRANS-4", "TRANS-5", "SOURCE-1", "SOURCE-2",
                                      "SHARE-1", "ORDER-2", "CACHE-1"]

    @Test(arguments: ReloadingSubjects.all.map(\.name))
    func meetsItsExpectationOnTheSourceChangingRules(_ name: String) async throws {
        let subject = try #require(ReloadingSubjects.all.first { $0.name == name })
        let report = try await ConformanceRunner().only(Self.sourceChangingRules).run(subject)
        #expect(report.meetsExpectation, "\(name) failed \(report.failedRules), expected \(subject.expectedToFail)")
        #expect(report.results.count == Self.sourceChangingRules.count)
        #expect(report.results.allSatisfy { $0.status != .notApplicable }, "the profile turns no rule off")
        for rule in subject.expectedToFail {
            #expect(report.result(for: rule)?.evidence.isEmpty == false, "\(name) fails \(rule) without evidence")
        }
    }

    @Test func theMutantsExpectSomeFailure() {
        let mutants = ReloadingSubjects.all.filter { $0.kind == .mutant }
        #expect(mutants.count == 2)
        #expect(mutants.allSatisfy { !$0.expectedToFail.isEmpty })
    }

    @Test(arguments: [ReloadingSubjects.reloads, ReloadingSubjects.reloadsKeepingPhase].map(\.name))
    func withoutTheDeclarationTheReloadFailsTheRulesTheProfileChanges(_ name: String) async throws {
        let declared = try #require(ReloadingSubjects.all.first { $0.name == name })
        var capabilities = declared.capabilities
        capabilities.remove(.reloadsOnSourceChange)
        let undeclared = ConformanceSubject(name: name + "-undeclared", capabilities: capabilities,
                                            makeLoader: declared.makeLoader)
        let report = try await ConformanceRunner().only(["TRANS-4", "SOURCE-1", "SHARE-1"]).run(undeclared)
        #expect(Set(report.failedRules) == ["TRANS-4", "SOURCE-1", "SHARE-1"], "\(report.results.map(\.evidence))")
    }
}
