import Foundation

/// Runs the chosen scenarios one after another and writes the report. A scenario that fails
/// becomes a skipped row naming the error; the others still run and the report is still written.
public struct BenchRunner {
    public let context: BenchContext
    public let scenarios: [any BenchScenario]
    /// Reports root; each run gets `<root>/<UTC timestamp>/` (default `Reports`).
    public let root: URL

    public init(context: BenchContext, scenarios: [any BenchScenario], root: URL) {
        self.context = context
        self.scenarios = scenarios
        self.root = root
    }

    /// Returns the run directory.
    public func run() async throws -> URL {
        let started = Date()
        let clock = ContinuousClock.now
        let startLoad = MachineInfo.loadAverage()
        let startCPU = CPUSnapshot.now()
        let planned = scenarios.map { $0.plannedUnits(quick: context.quick) }
        context.progress.log("imago bench: \(scenarios.map(\.name).joined(separator: ", "))"
                             + " (\(context.quick ? "quick" : "full"), \(planned.reduce(0, +)) samples planned)")
        var results: [BenchResult] = []
        for (scenario, units) in zip(scenarios, planned) {
            context.progress.begin(scenario.name, plannedUnits: units)
            do {
                results += try await scenario.run(context)
            } catch {
                context.progress.log("\(scenario.name): failed: \(error)")
                results.append(BenchResult(scenario: scenario.name, parameters: "", metric: "scenario", unit: "",
                                           direction: .lowerIsBetter, skipped: "scenario failed: \(error)"))
            }
            context.progress.end()
        }
        let duration = (ContinuousClock.now - clock).seconds
        let charts = ReportCharts.scenarioCharts(results)
        let loadAverages = (start: startLoad, end: MachineInfo.loadAverage())
        let activity = startCPU.flatMap { start in CPUSnapshot.now()?.activity(since: start, wallSeconds: duration) }
        let machine = MachineInfo.current()
        let report = MarkdownReport.markdown(results: results, machine: machine, scenarios: scenarios,
                                             quick: context.quick, started: started, duration: duration,
                                             loadAverages: loadAverages, activity: activity,
                                             charts: charts.map { ($0.file, $0.title, $0.svg) }, peers: context.peers)
        let page = HTMLReport.html(results: results, machine: machine, scenarios: scenarios, quick: context.quick,
                                   started: started, duration: duration, loadAverages: loadAverages, activity: activity,
                                   charts: charts, peers: context.peers)
        let files = [("results.csv", CSVWriter.csv(results)), (SamplesCSV.fileName, SamplesCSV.csv(results)),
                     ("report.md", report), ("report.html", page)] + charts.map { ($0.file, $0.svg) }
        let directory = try ReportDirectory.write(root: root, started: started, files: files)
        print(ReportSummary.markdown(results))
        print("")
        print(GoalCheck.rows(results).filter { $0.verdict != .notMeasured }
            .map { "\($0.verdict.rawValue): \($0.goal): \($0.measured) (target \($0.target))" }
            .joined(separator: "\n"))
        print("\nreport: \(directory.path)/report.md and report.html (\(ProgressReporter.format(seconds: duration)))")
        return directory
    }
}
