@testable import ImagoConformance
import ImagoConformanceSubjects
import Testing

/// ORDER-2's observer fidelity: every phase the model showed after a call reaches the observer,
/// in order, within the settle window.
@MainActor
struct ObserverFidelityTests {
    private let start = ContinuousClock.now
    private let window = Duration.milliseconds(150)

    private func read(_ phase: ObservedPhase, at offset: Int, _ call: String = "model 1: load()") -> SynchronousRead {
        SynchronousRead(phase: phase, at: start + .milliseconds(offset), call: call)
    }

    private func delivered(_ phases: [(Int, ObservedPhase)]) -> [(at: ContinuousClock.Instant, phase: ObservedPhase)] {
        phases.map { (at: start + .milliseconds($0.0), phase: $0.1) }
    }

    @Test func anObserverThatGotEveryReadPhaseInOrderKeptUp() {
        // Progress between the reads is extra, and allowed.
        let reads = [read(.empty, at: 10, "model 1: setSource(/b.png)"), read(.loading, at: 11),
                     read(.loading, at: 12, "model 1: load() again")]
        let seen = delivered([(0, .empty), (10, .empty), (11, .loading), (40, .loading(received: 5, expected: 9, previous: nil))])
        #expect(ObserverFidelity.violation(reads: reads, delivered: seen, attachedAt: start, window: window) == nil)
    }

    @Test func aPhaseLostBetweenTwoCallsOfOneTurnIsAViolation() throws {
        // What a coalescing observer does: empty (after setSource) never arrives, only loading.
        let reads = [read(.empty, at: 10, "model 1: setSource(/b.png)"), read(.loading, at: 10)]
        let seen = delivered([(0, .success(origin: .network, image: ImageFingerprint(width: 1, height: 1, digest: "00"))),
                              (12, .loading)])
        let violation = try #require(ObserverFidelity.violation(reads: reads, delivered: seen, attachedAt: start, window: window))
        #expect(violation.hasPrefix("empty, the phase right after model 1: setSource(/b.png), never reached the observer"))
    }

    @Test func phasesOutOfOrderAreAViolation() {
        let reads = [read(.loading, at: 10), read(.empty, at: 11, "model 1: cancel()")]
        let seen = delivered([(0, .empty), (12, .loading)])
        #expect(ObserverFidelity.violation(reads: reads, delivered: seen, attachedAt: start, window: window) != nil)
    }

    @Test func aPhaseDeliveredBeyondTheWindowIsALag() throws {
        let reads = [read(.loading, at: 10)]
        let seen = delivered([(0, .empty), (400, .loading)])
        let violation = try #require(ObserverFidelity.violation(reads: reads, delivered: seen, attachedAt: start, window: window))
        #expect(violation.contains("beyond the settle window"))
    }

    @Test func readsBeforeTheObserverAttachedDoNotCount() {
        let reads = [read(.loading, at: 1), read(.empty, at: 20, "model 1: cancel()")]
        let seen = delivered([(10, .loading), (20, .empty)])
        #expect(ObserverFidelity.violation(reads: reads, delivered: seen, attachedAt: start + .milliseconds(10),
                                           window: window) == nil)
    }

    /// Imago's own observers, the toy's, and (through `make example`) the blog loader's keep up.
    @Test(arguments: [MutantSubjects.reference, ImagoSubjects.subject(strategy: .data, caches: .memory),
                      ImagoSubjects.subject(strategy: .stream, caches: .none)])
    func conformingObserversPassOrder2(_ subject: ConformanceSubject) async throws {
        let report = try await ConformanceRunner().only(["ORDER-2"]).run(subject)
        let result = try #require(report.result(for: "ORDER-2"))
        #expect(result.status == .pass, "\(subject.name): \(result.evidence)")
    }

    /// Judged at the end of every check: a check whose own view the lost phases spoiled, or
    /// that passed in spite of them, fails with ORDER-2 named, grouped with ORDER-2 as one cause.
    @Test func everyCheckJudgesItsObserversAndTheFailuresAreOneCause() async throws {
        let report = try await ConformanceRunner().only(["SOURCE-1", "TRANS-2", "ORDER-2", "INIT"])
            .run(MutantSubjects.subject(.observerCoalesces))
        #expect(report.failedRules == ["TRANS-2", "SOURCE-1", "ORDER-2"])
        #expect(report.sharedSymptoms.map(\.rules) == [["TRANS-2", "SOURCE-1", "ORDER-2"]])
        let source = try #require(report.result(for: "SOURCE-1"))
        #expect(source.evidence.hasPrefix("ORDER-2 broken during this check: observer of model 1: empty, the phase "
                                          + "right after model 1: setSource(/source-1/b.png), never reached the observer"),
                "\(source.evidence)")
        let transitions = try #require(report.result(for: "TRANS-2"))
        #expect(transitions.evidence.contains("; the observer may explain this: ORDER-2 broken during this check"),
                "\(transitions.evidence)")
    }

    @Test func anObserverThatCoalescesPerTurnFailsOrder2() async throws {
        let report = try await ConformanceRunner().only(["ORDER-2"]).run(MutantSubjects.subject(.observerCoalesces))
        let result = try #require(report.result(for: "ORDER-2"))
        #expect(result.status == .fail)
        // Coalesced within the turn, or (with the other core busy) delivered a turn late, past
        // the settle window: both are the observer losing or delaying what the model showed.
        #expect(result.evidence.contains("never reached the observer") || result.evidence.contains("beyond the settle window"),
                "\(result.evidence)")
        #expect(result.symptom == "the observer lost or delayed phases the model showed")
    }
}
