/// What one `imago mutant-run` child reports on its standard output: how the suite judged one
/// planted bug (or none: the control) on each subject.
struct MutantRunResult: Codable, Sendable {
    struct SubjectOutcome: Codable, Sendable {
        let subject: String
        /// Rules that failed in the first run, which runs every check.
        let firstRunFailures: [String]
        /// Runs in which the target rule failed (the first run included).
        let caught: Int
        /// The target rule's evidence in the first run that caught it (or the last that did not).
        let evidence: String?
        /// The model-based checks (`MODEL-…`) that failed in the first run, each with the rule it
        /// diverged on (nil in results written before there were any).
        var modelDivergences: [String: String]? = nil
        /// The seed those checks drew from (`imago conform --seed` replays it on the configuration).
        var modelSeed: UInt64? = nil
    }

    /// nil for the control run (no bug).
    let mutant: String?
    let rule: String?
    let runs: Int
    let subjects: [SubjectOutcome]
}
