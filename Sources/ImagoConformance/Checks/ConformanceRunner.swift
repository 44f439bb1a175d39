import Foundation
import ImagoTestServer

/// Runs checks against a subject: one loopback server per subject, fresh directories and
/// fresh loader instances per check, so one rule's outcome never depends on another's.
public struct ConformanceRunner: Sendable {
    /// The checks to run (default: all of them).
    public var checks: [ConformanceCheck]
    /// See `CheckRun.settleWindow` (default 150 ms).
    public var settleWindow: Duration

    public init(checks: [ConformanceCheck] = ConformanceCheck.all, settleWindow: Duration = .milliseconds(150)) {
        self.checks = checks
        self.settleWindow = settleWindow
    }

    /// Only the checks whose rule ID is in `rules`, or whose family is (e.g. "SHARE").
    public func only(_ rules: [String]) -> ConformanceRunner {
        let wanted = Set(rules.map { $0.uppercased() })
        var copy = self
        copy.checks = checks.filter { wanted.contains($0.rule) || wanted.contains(String($0.rule.prefix { $0 != "-" })) }
        return copy
    }

    @MainActor
    public func run(_ subject: ConformanceSubject) async throws -> SubjectReport {
        let server = try await TestServer.start()
        let images = ConformanceImages()
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-conformance-\(UUID().uuidString.prefix(8))")
        var results: [CheckResult] = []
        for check in checks {
            results.append(await run(check, subject, server, images, root.appendingPathComponent(check.rule)))
        }
        try? FileManager.default.removeItem(at: root)
        try await server.shutdown()
        return SubjectReport(name: subject.name, kind: subject.kind, expectedToFail: subject.expectedToFail, results: results)
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
                               root: directory, settleWindow: settleWindow)
        } catch {
            return CheckResult(rule: check.rule, status: .fail, evidence: "harness: \(error)")
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await check.body(run)
            return CheckResult(rule: check.rule, status: .pass, evidence: run.evidence)
        } catch let failed as CheckFailed {
            return CheckResult(rule: check.rule, status: .fail, evidence: joined(failed.reason, run.evidence))
        } catch let exempt as CheckNotApplicable {
            return CheckResult(rule: check.rule, status: .notApplicable, evidence: joined(exempt.reason, run.evidence))
        } catch {
            return CheckResult(rule: check.rule, status: .fail, evidence: joined("error: \(error)", run.evidence))
        }
    }

    private func joined(_ reason: String, _ evidence: String) -> String {
        evidence.isEmpty ? reason : reason + " | " + evidence
    }
}
