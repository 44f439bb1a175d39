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
    @discardableResult
    public static func run(_ subjects: [ConformanceSubject], quick: Bool = false, plan: LoaderBenchPlan? = nil,
                           reports: URL) async throws -> Run {
        let context = BenchContext(quick: quick, inputsDirectory: FileManager.default.temporaryDirectory.path,
                                   executable: CommandLine.arguments[0], peers: [], progress: ProgressReporter())
        let runner = BenchRunner(context: context, scenarios: [LoaderScenario(subjects: subjects, plan: plan)],
                                 root: reports)
        let directory = try await runner.run()
        return Run(directory: directory, results: try RunReader.load(directory.path))
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
