import Foundation
import ImagoTestServer

/// Runs checks against a subject: one loopback server per subject, fresh directories and
/// fresh loader instances per check, so one rule's outcome never depends on another's.
public struct ConformanceRunner: Sendable {
    /// The checks to run (default: all of them).
    public var checks: [ConformanceCheck]
    /// See `CheckRun.settleWindow` (default 150 ms).
    public var settleWindow: Duration
    /// Where results are streamed as the checks run, so a crash keeps everything before it
    /// (default nil: no log; the report is only what `run` returns). See `ResultLog`.
    public var resultLog: ResultLog?
    /// The seed the model-based checks draw their operation sequences from (default: a new
    /// random one per runner, recorded in each `SubjectReport`): the same seed replays the same
    /// sequences (`imago conform --seed S`).
    public var seed: UInt64
    /// How many sequences the model-based checks run and how long they are (default
    /// `ExplorationBudget.standard`).
    public var budget: ExplorationBudget

    /// A runner of `checks` (default: every check) waiting `settleWindow` (default 150 ms) for
    /// proofs of absence, writing to `resultLog` (default none), with the model-based checks drawing
    /// from `seed` (default: random) within `budget` (default `.standard`).
    public init(checks: [ConformanceCheck] = ConformanceCheck.all, settleWindow: Duration = .milliseconds(150),
                resultLog: ResultLog? = nil, seed: UInt64 = .random(in: .min ... .max),
                budget: ExplorationBudget = .standard) {
        self.checks = checks
        self.settleWindow = settleWindow
        self.resultLog = resultLog
        self.seed = seed
        self.budget = budget
    }

    /// Only the checks whose rule ID is in `rules`, or whose family is (e.g. "SHARE").
    public func only(_ rules: [String]) -> ConformanceRunner {
        let wanted = Set(rules.map { $0.uppercased() })
        var copy = self
        copy.checks = checks.filter { wanted.contains($0.rule) || wanted.contains(String($0.rule.prefix { $0 != "-" })) }
        return copy
    }

    /// Runs every check against `subject`. With a `resultLog`, a subject line, then a start line
    /// before and a result line after each check, are appended as they happen; a failed append
    /// (disk full) ends the run with its error.
    @MainActor
    public func run(_ subject: ConformanceSubject) async throws -> SubjectReport {
        let server = try await TestServer.start()
        let images = try ConformanceImages()
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-conformance-\(UUID().uuidString.prefix(8))")
        var results: [CheckResult] = []
        do {
            try resultLog?.append(.subject(subject, seed: seed))
            for check in checks {
                try resultLog?.append(.start(subject, check.rule))
                let started = ContinuousClock.now
                let result = await run(check, subject, server, images, root.appendingPathComponent(check.rule))
                try resultLog?.append(.result(subject, result, ContinuousClock.now - started))
                results.append(result)
            }
        } catch {
            try? FileManager.default.removeItem(at: root)
            try? await server.shutdown()
            throw error
        }
        try? FileManager.default.removeItem(at: root)
        try await server.shutdown()
        return SubjectReport(name: subject.name, kind: subject.kind, expectedToFail: subject.expectedToFail,
                             results: results, seed: seed)
    }

    @MainActor
    private func run(_ check: ConformanceCheck, _ subject: ConformanceSubject, _ server: TestServer,
                     _ images: ConformanceImages, _ directory: URL) async -> CheckResult {
        let missing = check.requires.subtracting(subject.capabilities)
        guard missing.isEmpty else {
            return CheckResult(rule: check.rule, status: .notApplicable, evidence: "requires \(missing)")
        }
        let run: CheckRun
        do {
            run = try CheckRun(subject: subject, server: server, images: images, rule: check.rule,
                               root: directory, settleWindow: settleWindow, seed: seed, budget: budget)
        } catch {
            return CheckResult(rule: check.rule, status: .fail, evidence: "harness: \(error)")
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await check.body(run)
            return CheckResult(rule: check.rule, status: .pass, evidence: run.evidence, steps: run.steps)
        } catch let failed as CheckFailed {
            return CheckResult(rule: check.rule, status: .fail, evidence: joined(failed.reason, run.evidence), steps: run.steps,
                               divergedRule: failed.divergedRule)
        } catch let exempt as CheckNotApplicable {
            return CheckResult(rule: check.rule, status: .notApplicable, evidence: joined(exempt.reason, run.evidence),
                               steps: run.steps)
        } catch {
            return CheckResult(rule: check.rule, status: .fail, evidence: joined("error: \(error)", run.evidence),
                               steps: run.steps)
        }
    }

    private func joined(_ reason: String, _ evidence: String) -> String {
        evidence.isEmpty ? reason : reason + " | " + evidence
    }
}
