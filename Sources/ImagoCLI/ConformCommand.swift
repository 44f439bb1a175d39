import ArgumentParser
import Foundation
import ImagoConformance
import ImagoConformanceSubjects

/// `imago conform`: runs the conformance suite and prints the rule × subject matrix.
struct ConformCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Run the conformance suite against Imago's configurations and the mutant loaders.",
        discussion: """
            Subjects: imago-<data|file|stream>-<none|memory|disk|memory+disk>, toy-reference (the mutants' \
            bug-free control) and mutant-<bug>. Exit status: 0 when every Imago configuration passes \
            every applicable rule, every mutant is caught by exactly its expected rules and (with \
            --repeat) no verdict differed between runs; 1 otherwise, or when the results log cannot \
            be written; 64 on bad usage.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case md, csv, json
    }

    @Option(name: .customLong("subject"), help: "Run only this subject (repeatable; default: all).")
    var subjects: [String] = []

    @Option(name: .customLong("rule"), help: "Run only this rule or family, e.g. SHARE-2 or DISK (repeatable).")
    var rules: [String] = []

    @Option(help: "Output format: md, csv or json.")
    var format: Format = .md

    @Option(help: "Write the report to this file instead of standard output.")
    var out: String?

    @Option(help: ArgumentHelp(
        "Also stream results to this file as JSON lines while the checks run (a start line before each check, a result line after).",
        discussion: "A crash mid-run keeps every line before it; ResultLog.report(from:) rebuilds the report, the check that was running as crashed."))
    var jsonl: String?

    @Option(name: .customLong("repeat"), help: "Run the selected subjects and rules this many times and report any verdict that differs between runs (default 1).")
    var repeatCount: Int = 1

    @Option(help: ArgumentHelp(
        "Seed of the model-based checks' operation sequences (default: a new random seed, printed).",
        discussion: "A failing MODEL- check prints the seed that replays it; the same seed, subject and rule run the same sequences."))
    var seed: UInt64?

    @Option(help: "Sequences each model-based check runs (default \(ExplorationBudget.standard.sequences)); more explore further and take longer.")
    var budget: Int = ExplorationBudget.standard.sequences

    static var allSubjects: [ConformanceSubject] {
        ImagoSubjects.all + [MutantSubjects.reference] + MutantSubjects.all + ReloadingSubjects.all
    }

    /// Subjects run only when named: `crash-on-load` kills the process (the results log's test).
    static var hiddenSubjects: [ConformanceSubject] { [CrashingSubject.subject] }

    func validate() throws {
        guard repeatCount >= 1 else { throw ValidationError("--repeat must be at least 1") }
        guard budget >= 1 else { throw ValidationError("--budget must be at least 1") }
        let known = Set((Self.allSubjects + Self.hiddenSubjects).map(\.name))
        for name in subjects where !known.contains(name) {
            throw ValidationError("unknown subject \(name); known: \(Self.allSubjects.map(\.name).joined(separator: ", "))")
        }
        let families = Set(ConformanceCheck.ruleIDs.map { String($0.prefix { $0 != "-" }) })
        for rule in rules where !ConformanceCheck.ruleIDs.contains(rule.uppercased()) && !families.contains(rule.uppercased()) {
            throw ValidationError("unknown rule \(rule); rules: \(ConformanceCheck.ruleIDs.joined(separator: ", "))")
        }
    }

    @MainActor
    func run() async throws {
        let candidates = Self.allSubjects + Self.hiddenSubjects
        let selected = subjects.isEmpty ? Self.allSubjects : candidates.filter { subjects.contains($0.name) }
        var runner = rules.isEmpty ? ConformanceRunner() : ConformanceRunner().only(rules)
        runner.resultLog = try jsonl.map { try ResultLog(url: URL(fileURLWithPath: $0)) }
        runner.seed = seed ?? runner.seed
        runner.budget.sequences = budget
        Self.printError("model-based checks: seed \(runner.seed), \(runner.budget)")
        defer { runner.resultLog?.close() }
        var started = ContinuousClock.now
        let runs = repeatCount
        let report = try await RepeatedConformanceRun(runner: runner, times: runs).run(selected) { run, result in
            let failed = result.failedRules.isEmpty ? "none" : result.failedRules.joined(separator: ",")
            let verdict = result.meetsExpectation ? "as expected" : "NOT AS EXPECTED"
            let prefix = runs > 1 ? "run \(run)/\(runs) " : ""
            Self.printError("\(prefix)\(result.name): failed \(failed) (\(verdict), \(ContinuousClock.now - started))")
            started = ContinuousClock.now
        }
        if runs > 1 {
            Self.printError(report.flips.isEmpty ? "no verdict differed between the \(runs) runs"
                                                 : report.flips.map { "FLIP \($0)" }.joined(separator: "\n"))
        }
        let text: String
        switch format {
        case .md: text = report.markdown()
        case .csv: text = report.csv()
        case .json: text = try report.json()
        }
        if let out {
            try Data(text.utf8).write(to: URL(fileURLWithPath: out))
        } else {
            print(text, terminator: "")
        }
        if !report.meetsExpectation { throw ExitCode(1) }
    }

    private static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
