import ArgumentParser
import Foundation
import ImagoConformance
import ImagoConformanceSubjects

/// `imago mutant-run` (hidden): one child of `imago mutants`. Switches one planted bug on for
/// this process, runs every check once on each subject, then the bug's own rule `runs - 1` more
/// times, and prints a `MutantRunResult` as JSON. A process per bug, so a bug that crashes or
/// hangs the loader costs only its own row.
struct MutantRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mutant-run", abstract: "Run the suite against one planted bug (used by `imago mutants`).",
        shouldDisplay: false)

    @Option(help: "The planted bug to switch on (omit for the control run).")
    var mutant: String?

    @Option(name: .customLong("subject"), help: "Imago configuration to run against (repeatable).")
    var subjects: [String] = []

    @Option(help: "Runs of the bug's rule, the first of them with every other rule too (default 20).")
    var runs = 20

    @Option(help: "Seed of the model-based checks in the first run (default: a new random one).")
    var seed: UInt64?

    @Option(name: .customLong("rule"), help: "Only these rules or families in the first run, e.g. MODEL (repeatable; default: every rule).")
    var rules: [String] = []

    @MainActor
    func run() async throws {
        let planted: PipelineMutant?
        if let mutant {
            guard let found = PipelineMutants.all.first(where: { $0.name == mutant }) else {
                throw ValidationError("unknown mutant \(mutant)")
            }
            planted = found
        } else {
            planted = nil
        }
        ActiveMutant.switchOn(planted?.mutant)
        let modelSeed = seed ?? .random(in: .min ... .max)
        var outcomes: [MutantRunResult.SubjectOutcome] = []
        for name in subjects {
            guard let subject = ImagoSubjects.all.first(where: { $0.name == name }) else {
                throw ValidationError("unknown subject \(name)")
            }
            // The model-based checks shrink a failing sequence with few replays here: the report
            // needs what caught the bug and the rule, not the shortest sequence.
            let runner = ConformanceRunner(seed: modelSeed, budget: ExplorationBudget(shrinkReplays: 4))
            let first = try await (rules.isEmpty ? runner : runner.only(rules)).run(subject)
            var caught = 0
            var evidence: String?
            func tally(_ report: SubjectReport) {
                guard let rule = planted?.rule, let result = report.result(for: rule) else { return }
                if caught == 0 { evidence = result.evidence }   // the first catch, or the last miss
                if result.status == .fail { caught += 1 }
            }
            tally(first)
            if let rule = planted?.rule {
                for _ in 1..<max(runs, 1) { tally(try await ConformanceRunner().only([rule]).run(subject)) }
            }
            let divergences = first.results.filter { ConformanceCheck.isModelBased($0.rule) && $0.status.isFailing }
                .reduce(into: [String: String]()) { $0[$1.rule] = $1.divergedRule ?? "?" }
            outcomes.append(.init(subject: name, firstRunFailures: first.failedRules, caught: caught, evidence: evidence,
                                  modelDivergences: divergences, modelSeed: modelSeed))
        }
        let result = MutantRunResult(mutant: planted?.name, rule: planted?.rule, runs: planted == nil ? 1 : max(runs, 1),
                                     subjects: outcomes)
        FileHandle.standardOutput.write(try JSONEncoder().encode(result))
    }
}
