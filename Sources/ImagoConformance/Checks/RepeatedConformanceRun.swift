/// Runs the same subjects and rules several times to show that every verdict is the same in
/// every run: a check whose verdict flips proves nothing either way. Each run is an ordinary
/// `ConformanceRunner` run (a fresh server per subject, fresh directories and loaders per check).
public struct RepeatedConformanceRun: Sendable {
    /// Runs each subject (its checks, settle window and results log).
    public var runner: ConformanceRunner
    /// How many times every subject runs (at least 1; no default: choose what a flip rate of
    /// interest needs, e.g. 3 in CI, 20 to show a verdict holds).
    public var times: Int

    /// Runs `runner` (default: every check, 150 ms settle window, no log) `times` times; traps when
    /// `times` is less than 1.
    public init(runner: ConformanceRunner = ConformanceRunner(), times: Int) {
        precondition(times >= 1, "RepeatedConformanceRun needs at least one run")
        self.runner = runner
        self.times = times
    }

    /// Runs every subject, in order, `times` times over, calling `progress` after each subject
    /// of each run (run numbers start at 1), and returns the combined report: the flips, and
    /// for each (subject, rule) its first failing result, if any (`ConformanceReport.combining`).
    @MainActor
    public func run(_ subjects: [ConformanceSubject],
                    progress: (@MainActor (_ run: Int, _ report: SubjectReport) -> Void)? = nil) async throws
        -> ConformanceReport {
        var reports: [ConformanceReport] = []
        for index in 1...times {
            var report = ConformanceReport(subjects: [])
            for subject in subjects {
                let result = try await runner.run(subject)
                report.subjects.append(result)
                progress?(index, result)
            }
            reports.append(report)
        }
        return ConformanceReport.combining(reports)
    }
}
