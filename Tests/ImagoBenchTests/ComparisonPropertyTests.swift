import Testing
@testable import ImagoBench

/// The comparison checked honestly on seeded synthetic runs, 20 trials each: two runs of the
/// same distribution are within noise, a planted 10% change is found in every trial.
@Suite struct ComparisonPropertyTests {
    let runs = SyntheticRuns()
    let trials: [UInt64] = Array(0..<20)
    /// The 20-trial tests resample 2,000 times rather than the CLI's 10,000, five times faster
    /// in a debug build: a percentile interval's ends are stable from about 1,000 resamples
    /// (Efron and Tibshirani), and the single-comparison tests below use the default.
    let bootstrap = MedianBootstrap(resamples: 2_000)

    /// Two runs of one build: every row within noise in at least 19 of 20 trials.
    @Test func anAAComparisonIsWithinNoiseInAtLeast19Of20Trials() {
        let quiet = trials.filter { trial in
            let comparison = RunComparison(base: runs.run(seed: 2 * trial), new: runs.run(seed: 2 * trial + 1), bootstrap: bootstrap)
            return comparison.rows.allSatisfy { $0.verdict == .withinNoise } && comparison.status == .within
        }
        #expect(quiet.count >= 19, "within noise in \(quiet.count) of 20 trials")
    }

    /// The same A/A trials without the threshold (0%): the interval alone flags some rows, so
    /// the test above would notice the threshold being dropped.
    @Test func withoutAThresholdTheIntervalAloneFlagsSomeAARows() {
        let flagged = trials.flatMap { trial in
            RunComparison(base: runs.run(seed: 2 * trial), new: runs.run(seed: 2 * trial + 1), threshold: 0,
                          bootstrap: bootstrap).rows
        }.filter { $0.verdict != .withinNoise }
        #expect(!flagged.isEmpty)
    }

    @Test(arguments: [
        // A 10% slower decode (lower is better): worse.
        ("decode-time", 1.10, RunComparison.Verdict.worse, GateStatus.regression),
        // A 10% faster decode: better.
        ("decode-time", 0.90, .better, .improvement),
        // 10% less throughput (higher is better): worse.
        ("throughput", 1 / 1.10, .worse, .regression),
        // 10% more throughput: better.
        ("throughput", 1.10, .better, .improvement),
    ])
    func aPlantedTenPercentChangeIsFoundInEveryTrial(metric: String, scale: Double,
                                                      verdict: RunComparison.Verdict, status: GateStatus) throws {
        let planted = SyntheticRuns.metrics.filter { $0.metric == metric }
        for trial in trials {
            let comparison = RunComparison(base: runs.run(seed: 2 * trial, metrics: planted),
                                           new: runs.run(seed: 2 * trial + 1, metrics: planted, scale: [metric: scale]),
                                           bootstrap: bootstrap)
            let row = comparison.rows[0]
            #expect(row.verdict == verdict, "trial \(trial): \(row)")
            #expect(comparison.status == status)
            let change = try #require(row.change), interval = try #require(row.interval)
            #expect(abs(change - (scale - 1)) < 0.05, "trial \(trial): \(change)")
            #expect(!interval.contains(0) && interval.contains(change))
        }
    }

    /// A slowdown of one scenario among unchanged ones is a regression of that row only.
    @Test func aSlowdownOfOneScenarioIsARegressionOfThatRow() {
        let comparison = RunComparison(base: runs.run(seed: 100), new: runs.run(seed: 101, scale: ["decode-time": 1.1]))
        #expect(comparison.rows.map(\.verdict) == [.worse, .withinNoise, .withinNoise])
        #expect(comparison.status == .regression)
    }

    /// A 10% memory growth is within the memory threshold (15%, like bench-check); 25% is not.
    @Test func memoryRowsUseTheMemoryGatesTolerance() {
        let memory = SyntheticRuns.metrics.filter { $0.unit == "MiB" }
        let small = RunComparison(base: runs.run(seed: 7, metrics: memory), new: runs.run(seed: 8, metrics: memory, scale: ["peak-rss": 1.1]))
        let large = RunComparison(base: runs.run(seed: 7, metrics: memory), new: runs.run(seed: 8, metrics: memory, scale: ["peak-rss": 1.25]))
        #expect(small.rows[0].verdict == .withinNoise)
        #expect(large.rows[0].verdict == .worse)
        #expect(RunComparison(base: runs.run(seed: 7, metrics: memory), new: runs.run(seed: 8, metrics: memory, scale: ["peak-rss": 1.1]),
                              threshold: 0.05).rows[0].verdict == .worse)
    }

    /// The same inputs give the same intervals: the bootstrap is seeded.
    @Test func theIntervalsRepeat() {
        let first = RunComparison(base: runs.run(seed: 1), new: runs.run(seed: 2))
        #expect(first == RunComparison(base: runs.run(seed: 1), new: runs.run(seed: 2)))
    }
}
