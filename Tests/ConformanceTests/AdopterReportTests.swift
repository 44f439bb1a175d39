import Foundation
import ImagoConformance
import ImagoConformanceSubjects
import Testing

/// What an adopter reads: hints derived from what was observed, failures sharing a cause grouped,
/// HTTP-3 accepting a bounded refusal of a bomb's ratio, partial passes marked in every format,
/// and models named alike in evidence and steps. One test at a time: the two MEM-5 tests load the
/// same images, and MEM-5's byte count is the process's, so one's images freed during the other's
/// reading left it unable to judge the count (rehearsal 29).
@MainActor
@Suite(.serialized)
struct AdopterReportTests {
    @Test func aMemoryHitPublishedLateIsReportedAsLateNotAsAMappingProblem() async throws {
        let report = try await ConformanceRunner().only(["CACHE-1"]).run(MutantSubjects.subject(.asynchronousMemoryHit))
        let result = try #require(report.result(for: "CACHE-1"))
        #expect(result.status == .fail)
        #expect(result.evidence.contains("the success came late"), "\(result.evidence)")
        #expect(!result.evidence.contains("maps the loader's result"), "\(result.evidence)")
        #expect(result.symptom == "success published late, not before the call returned")
    }

    /// The adopter's case: a source change ignored after a success makes TRANS-2 and ORDER-2 wait
    /// for a terminal phase that never comes; both say what was seen and are grouped as one cause.
    @Test func rulesFailingWithTheSameSymptomAreGroupedAsOneCause() async throws {
        let subject = AlteredLoader.subject("source-change-ignored") { model, _ in SourceChangeIgnoredAfterSuccess(model) }
        let report = try await ConformanceRunner().only(["TRANS-2", "ORDER-2"]).run(subject)
        for rule in ["TRANS-2", "ORDER-2"] {
            let result = try #require(report.result(for: rule))
            #expect(result.status == .fail, "\(rule): \(result.evidence)")
            #expect(result.evidence.contains("nothing was published after the previous success"), "\(rule): \(result.evidence)")
            #expect(!result.evidence.contains("load missing:"), "\(rule): \(result.evidence)")
        }
        #expect(report.sharedSymptoms.map(\.rules) == [["TRANS-2", "ORDER-2"]])
        let markdown = ConformanceReport(subjects: [report]).markdown()
        #expect(markdown.contains("- Likely the same cause: TRANS-2, ORDER-2 all observed \"nothing published after a terminal phase"),
                "\(markdown)")
    }

    /// The bomb-ratio body refused with a typed failure passes (stated in the evidence); a
    /// success with other pixels does not; the realistic ratio must still succeed.
    @Test(arguments: [(ObservedPhase.failure(.transport("decompression limit: ratio over 25:1")), CheckStatus.pass),
                      (.failure(.other("body too large")), .pass),
                      (.failure(.httpStatus(413)), .fail),
                      (.success(origin: .network, image: ImageFingerprint(width: 160, height: 120, digest: "00")), .fail)])
    func http3JudgesTheBombRatioBodysOutcome(_ outcome: ObservedPhase, _ expected: CheckStatus) async throws {
        let subject = AlteredLoader.subject("bomb-defence") { model, source in
            source?.url.path.contains("bomb-ratio") == true ? OutcomeReplacingModel(model, outcome: outcome) : model
        }
        let report = try await ConformanceRunner().only(["HTTP-3"]).run(subject)
        let result = try #require(report.result(for: "HTTP-3"))
        #expect(result.status == expected, "\(outcome): \(result.evidence)")
        if expected == .pass {
            #expect(result.evidence.contains("refused as failure(\(outcome.failure!)) within the time limit, accepted"),
                    "\(result.evidence)")
        }
    }

    @Test func theRealisticBodyIsSevenToOneAndMustSucceed() async throws {
        // Refusing the 7:1 body too is not a bomb defence: it fails, with the refusal's hint.
        let subject = AlteredLoader.subject("refuses-everything-gzip") { model, source in
            source?.url.path.contains("compressed-gzip") == true
                ? OutcomeReplacingModel(model, outcome: .failure(.transport("decompression limit"))) : model
        }
        let report = try await ConformanceRunner().only(["HTTP-3"]).run(subject)
        let result = try #require(report.result(for: "HTTP-3"))
        #expect(result.status == .fail)
        #expect(result.evidence.contains("the client refused or cut the body"), "\(result.evidence)")
        #expect(result.evidence.hasPrefix("compressed-gzip.png ("), "\(result.evidence)")
        #expect(result.symptom == "the client refused or cut a complete body (transport failure)")
    }

    @Test func mem5WithoutALifetimeProbeIsAPartialPassInEveryFormat() async throws {
        let subject = MutantSubjects.reference
        let report = ConformanceReport(subjects: [try await ConformanceRunner().only(["MEM-5"]).run(subject)])
        let result = try #require(report.subjects.first?.result(for: "MEM-5"))
        #expect(result.status == .pass, "\(result.evidence)")
        #expect(result.partial?.hasPrefix("no LifetimeProbe, only the adapter's objects were watched") == true)
        #expect(result.evidence.hasPrefix("partial: no LifetimeProbe"))
        #expect(report.markdown().contains("| pass (partial) |"))
        #expect(report.markdown().contains("- **MEM-5** pass (partial): partial: no LifetimeProbe"))
        #expect(report.csv().contains("MEM-5,pass,no,\"partial: no LifetimeProbe"))
        #expect(try JSONDecoder().decode(ConformanceReport.self, from: Data(report.json().utf8)) == report)
        #expect(try report.json().contains("\"partial\" : \"no LifetimeProbe"))
        // Evidence names objects as the steps do.
        #expect(result.evidence.contains("loader 1 (the check's wrapper)") && result.evidence.contains("model 1 (the check's wrapper)"))
        #expect(result.steps.contains { $0.hasPrefix("loader 1 created") })
        #expect(result.steps.contains { $0.hasPrefix("model 1 created on loader 1") })
    }

    @Test func mem5WithALifetimeProbeIsAPlainPass() async throws {
        let report = try await ConformanceRunner().only(["MEM-5"]).run(ImagoSubjects.subject(strategy: .data, caches: .memory))
        let result = try #require(report.result(for: "MEM-5"))
        #expect(result.status == .pass, "\(result.evidence)")
        #expect(result.partial == nil || result.partial!.contains("other work freed images"), "\(result.partial ?? "")")
    }

    @Test func logsAndReportsWrittenBeforeSymptomsAndPartialsReadAsBefore() throws {
        let line = #"{"event":"result","subject":"s","rule":"MEM-5","status":"pass","evidence":"ok","steps":["a"]}"#
        let entry = try JSONDecoder().decode(ResultLogEntry.self, from: Data(line.utf8))
        #expect(entry.symptom == nil && entry.partial == nil)
        let result = try JSONDecoder().decode(CheckResult.self, from: Data(#"{"rule":"X-1","status":"fail","evidence":"e"}"#.utf8))
        #expect(result.symptom == nil && result.partial == nil && result.verdictText == "fail")
        // A result without them encodes without the keys: old readers see what they always saw.
        let encoded = String(decoding: try JSONEncoder().encode(CheckResult(rule: "X-1", status: .pass, evidence: "e")), as: UTF8.self)
        #expect(!encoded.contains("symptom") && !encoded.contains("partial"))
    }

    @Test func theResultsLogCarriesSymptomAndPartial() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imago-adopter-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let log = try ResultLog(url: url)
        let results = [CheckResult(rule: "MEM-5", status: .pass, evidence: "partial: p", partial: "p"),
                       CheckResult(rule: "TRANS-2", status: .fail, evidence: "e", steps: ["s"], symptom: "same"),
                       CheckResult(rule: "ORDER-2", status: .fail, evidence: "e", steps: ["s"], symptom: "same")]
        try log.append(ResultLogEntry(event: .subject, subject: "s", kind: .other, expectedToFail: []))
        for result in results {
            try log.append(ResultLogEntry(event: .start, subject: "s", rule: result.rule))
            try log.append(ResultLogEntry(event: .result, subject: "s", rule: result.rule, status: result.status,
                                          evidence: result.evidence, steps: result.steps, symptom: result.symptom,
                                          partial: result.partial))
        }
        log.close()
        let subject = try #require(try ResultLog.report(from: url).subjects.first)
        #expect(subject.results == results)
        #expect(subject.sharedSymptoms.map(\.rules) == [["TRANS-2", "ORDER-2"]])
    }

    /// What `assertConforms` prints under a failure: the steps numbered as in the Markdown report.
    @Test func numberedStepsAreTheMarkdownReportsLines() async throws {
        let report = try await ConformanceRunner().only(["TRANS-4"]).run(MutantSubjects.subject(.cancellationPublishedAsFailure))
        let result = try #require(report.result(for: "TRANS-4"))
        #expect(result.status == .fail)
        let markdown = ConformanceReport(subjects: [report]).markdown()
        #expect(markdown.contains(result.numberedSteps.replacingOccurrences(of: "|", with: "\\|")))
        #expect(result.numberedSteps.hasPrefix("  1. server route /trans-4/held.png"))
    }
}
