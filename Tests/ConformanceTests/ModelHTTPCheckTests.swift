import ImagoConformance
import ImagoConformanceSubjects
import Testing

/// MODEL-HTTP against loaders whose HTTP caching is known: Imago's, which follows RFC 9111, and
/// the toy loader, which honours `no-store` but treats every stored response as fresh forever.
@MainActor
@Suite struct ModelHTTPCheckTests {
    /// A seed whose sequences reach stale responses (most do), fixed so a failure replays.
    static let seed: UInt64 = 20_261_126

    @Test("Imago's disk configurations agree with the reference",
          arguments: [LoaderContext.FetchStrategy.data, .file, .stream])
    func imagoAgrees(_ strategy: LoaderContext.FetchStrategy) async throws {
        let subject = ImagoSubjects.subject(strategy: strategy, caches: .disk)
        let report = try await ConformanceRunner(seed: Self.seed).only(["MODEL-HTTP"]).run(subject)
        let result = try #require(report.result(for: "MODEL-HTTP"))
        #expect(result.status == .pass, "\(result.evidence)")
        #expect(result.evidence.contains("revalidated (304)"), "\(result.evidence)")
    }

    @Test("A loader that serves stale responses diverges on HTTP-2, shrunk to a few operations")
    func stalenessIsCaught() async throws {
        let toy = MutantSubjects.reference
        // The toy claiming freshness it does not have: every stored response stays fresh.
        let claiming = ConformanceSubject(name: "toy-claims-http-freshness", kind: .other,
                                          capabilities: toy.capabilities.union(.httpFreshness), makeLoader: toy.makeLoader)
        let report = try await ConformanceRunner(seed: Self.seed).only(["MODEL-HTTP"]).run(claiming)
        let result = try #require(report.result(for: "MODEL-HTTP"))
        #expect(result.status == .fail)
        #expect(result.divergedRule == "HTTP-2", "\(result.evidence)")
        #expect(result.evidence.contains("observed no request"), "\(result.evidence)")
        #expect(result.evidence.contains("replay it with `imago conform --seed \(Self.seed)"), "\(result.evidence)")
    }
}
