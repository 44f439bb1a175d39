import ArgumentParser
import Foundation
import ImagoBench
import ImagoConformanceSubjects

/// `imago mutants`: mutation testing of Imago's own pipeline. Each planted bug (a part of the
/// harness's given to Imago in place of its own, `ImagoConformanceSubjects/PipelineMutants`) is
/// switched on in a child process of its own, which runs every check once and the bug's rule
/// `--repeat` times; a control child runs every check with no bug. Writes the mutant × rule
/// report (Reports/mutants.md). Exit status: 0 when every generation-1 bug is caught by its rule
/// in every run on every subject and the control passes (generation-2 bugs are measured, not
/// required: `MutantGeneration`); 1 otherwise; 64 on bad usage.
struct MutantsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mutants",
        abstract: "Mutation-test Imago's pipeline with the conformance suite.")

    @Option(name: .customLong("repeat"), help: "Runs of each bug's rule (default 20).")
    var runs = 20

    @Option(name: .customLong("only"), help: "Only this planted bug (repeatable; default: all).")
    var only: [String] = []

    @Option(help: "Only the bugs of this generation: 1, planted for their rule's check, or 2, written blind (default: both).")
    var generation: Int?

    @Option(help: "Seconds one bug's child may take before it is killed (default 600).")
    var timeout = 600

    @Option(help: "Write the Markdown report to this file instead of standard output.")
    var out: String?

    func validate() throws {
        guard runs >= 1, timeout >= 1 else { throw ValidationError("--repeat and --timeout must be at least 1") }
        if let generation, MutantGeneration(rawValue: generation) == nil {
            throw ValidationError("--generation must be 1 or 2, not \(generation)")
        }
    }

    func run() async throws {
        let selected = (only.isEmpty ? PipelineMutants.all : PipelineMutants.all.filter { only.contains($0.name) })
            .filter { generation == nil || $0.generation.rawValue == generation }
        for name in only where !PipelineMutants.all.contains(where: { $0.name == name }) {
            throw ValidationError("unknown mutant \(name); known: \(PipelineMutants.all.map(\.name).joined(separator: ", "))")
        }
        // This very binary (a bare `imago` from PATH would not resolve for a child).
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let started = ContinuousClock.now
        let controlSubjects = Array(Set(selected.flatMap(\.subjects))).sorted()
        var rows: [MutantsReport.Row] = []
        let control = child(executable, mutant: nil, subjects: controlSubjects)
        log("control (\(controlSubjects.joined(separator: ", "))): "
            + (control.passes ? "every rule passes" : "FAILED \(control.summary)"))
        for planted in selected {
            let outcome = child(executable, mutant: planted.name, subjects: planted.subjects)
            rows.append(MutantsReport.Row(mutant: planted, outcome: outcome))
            log("\(planted.name) [\(planted.rule), generation \(planted.generation.rawValue)]: \(outcome.summary)")
        }
        let invocation = (["imago"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
        let report = MutantsReport(rows: rows, control: control, runs: runs, duration: ContinuousClock.now - started,
                                   invocation: invocation)
        let text = report.markdown()
        if let out { try Data(text.utf8).write(to: URL(fileURLWithPath: out)) } else { print(text, terminator: "") }
        if !report.allCaught || !control.passes { throw ExitCode(1) }
    }

    /// Runs one child in a temporary directory of its own (its TMPDIR), removed afterwards: a
    /// child killed by its timeout or by the bug leaves its check directories there.
    private func child(_ executable: String, mutant: String?, subjects: [String]) -> MutantsReport.Outcome {
        var arguments = ["mutant-run", "--runs", String(runs)] + subjects.flatMap { ["--subject", $0] }
        if let mutant { arguments += ["--mutant", mutant] }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imago-mutant-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = scratch.path
            let ending = try CapturedRun.run(executable, arguments, timeout: .seconds(timeout), environment: environment)
            if ending.exitStatus == 0, let result = try? JSONDecoder().decode(MutantRunResult.self, from: ending.standardOutput) {
                return .finished(result)
            }
            let tail = String(decoding: ending.standardError.suffix(600), as: UTF8.self)
            let how = ending.timedOut ? "timed out after \(timeout) s" : ending.signal.map { "killed by signal \($0)" }
                ?? "exited \(ending.exitStatus ?? -1)"
            return .broke("\(how): \(tail)")
        } catch {
            return .broke("could not start: \(error)")
        }
    }

    private func log(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }
}
