import Foundation
import ImagoBench
import ImagoConformance

/// The loader bench in one call, for an adopter's own executable (as `ConformanceRunner` runs
/// the suite): measures each subject with `LoaderScenario` and writes the usual report.
public enum LoaderBench {
    /// A finished run: where its report is and what it holds.
    public struct Run: Sendable {
        /// `<reports>/<UTC timestamp>/`, with results.csv, samples.csv, report.md and report.html.
        public let directory: URL
        /// The rows as read back from the files written (what `imago bench compare` reads).
        public let results: [BenchResult]
        /// Why a subject could not be measured, one line each; empty when every subject ran.
        public var failures: [String] {
            results.filter { $0.scenario == LoaderRows.scenario && $0.metric == "scenario" }.compactMap(\.skipped)
        }
    }

    /// Measures `subjects` and writes `<reports>/<UTC timestamp>/` (results.csv, samples.csv,
    /// report.md, report.html, charts), re-pointing `<reports>/latest` at it. `quick` (default
    /// false) is the short plan (`LoaderBenchPlan(quick: true)`); `plan` (default nil) overrides it.
    ///
    /// Memory is measured in fresh processes: this executable started again with the same
    /// arguments, where this call measures and exits before anything else (`serveMemoryProbe`),
    /// so call it before other work with side effects.
    @discardableResult
    public static func run(_ subjects: [ConformanceSubject], quick: Bool = false, plan: LoaderBenchPlan? = nil,
                           reports: URL) async throws -> Run {
        await serveMemoryProbe(subjects: subjects)
        let context = BenchContext(quick: quick, inputsDirectory: FileManager.default.temporaryDirectory.path,
                                   executable: BenchContext.currentExecutable, peers: [], progress: ProgressReporter())
        let runner = BenchRunner(context: context, scenarios: [LoaderScenario(subjects: subjects, plan: plan)],
                                 root: reports)
        let directory = try await runner.run()
        return Run(directory: directory, results: try RunReader.load(directory.path))
    }

    /// When this process was started by the loader bench to measure memory (a fresh copy of the
    /// bench's executable, `IMAGO_LOADER_MEMORY_PROBE` in its environment), measures it among
    /// `subjects`, prints the reading and exits; otherwise returns at once. `run` calls it first;
    /// an entry point that runs `LoaderScenario` itself (`imago bench`) calls it before anything else.
    @MainActor
    public static func serveMemoryProbe(subjects: [ConformanceSubject]) async {
        await LoaderMemoryProbe.serveIfRequested(subjects: subjects)
    }

    /// The subjects of `available` called `names` (comma-separated lists allowed), in the order
    /// named; throws `unknownSubject` naming the valid names.
    public static func select(_ names: [String], from available: [ConformanceSubject]) throws -> [ConformanceSubject] {
        let wanted = names.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return try wanted.map { name in
            guard let subject = available.first(where: { $0.name == name }) else {
                throw LoaderBenchError.unknownSubject(name, known: available.map(\.name))
            }
            return subject
        }
    }
}
