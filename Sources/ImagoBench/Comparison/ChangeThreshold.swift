/// How far a median must move before `imago bench compare` calls it better or worse, on top of
/// the change being outside the noise (its confidence interval excluding zero): the larger of a
/// relative part and an absolute floor.
public struct ChangeThreshold: Sendable, Equatable {
    /// The fraction of the base median (0.05: 5%).
    public var relative: Double
    /// A floor in the row's own unit (0: none), so a small absolute wobble of a small figure,
    /// like a few MiB of resident memory, is not a change.
    public var absolute: Double

    /// A threshold of `relative` (a fraction) with a floor of `absolute` in the row's unit (default 0).
    public init(relative: Double, absolute: Double = 0) {
        self.relative = relative
        self.absolute = absolute
    }

    /// Times, rates, counts and ratios: 5%, no floor. Below that, run-to-run drift of a shared
    /// machine (frequency scaling, other processes) moves medians of whole runs even when the
    /// bootstrap interval, which only sees the noise within a run, excludes zero.
    public static let timing = ChangeThreshold(relative: 0.05)

    /// Memory in MiB: the memory gate's own tolerance (``Baseline/Tolerance``'s defaults,
    /// 15% with a 4 MiB floor), so `bench compare` and `bench-check` agree on what a memory
    /// change is.
    public static let memory: ChangeThreshold = {
        let tolerance = Baseline.Tolerance()
        return ChangeThreshold(relative: tolerance.relative, absolute: Double(tolerance.absoluteBytes) / 1_048_576)
    }()

    /// Latencies of single events under concurrency, in ms: the cancellation scenario's
    /// cancel-to-end times and the coalescing scenario's per-load latency. 50% with a 20 ms
    /// floor. Each is one event timed across threads, the event loop and the server, so a whole
    /// run's median moves with the machine, not only with the code: in 20 A/A comparisons of 21
    /// quick runs of one build (a busy machine, load average 7.5 falling to 2.5), medians of
    /// sub-millisecond cancellations moved up to 5× and the coalescing latency up to 2.1×, while
    /// every bootstrap interval saw only the noise within its run; the largest absolute move was
    /// 16 ms. Below the floor no verdict is honest; a cancellation or a coalesced load that
    /// slows by tens of milliseconds still shows.
    public static let eventLatency = ChangeThreshold(relative: 0.5, absolute: 20)

    /// Instructions counted by callgrind (``InstructionCounter``): 1%, no floor. The counts of
    /// one build repeat from run to run (the machine does not move them), so a change of 1% is
    /// a change of the code's CPU work.
    public static let instructions = ChangeThreshold(relative: 0.01)

    /// Times and rates of the CPU-bound scenarios, decode and thumbnails: 40%, no floor. In
    /// A/A comparisons of full decode runs of one build on this 2-core VM (12 trials over two
    /// days, Reports/measurements.md, "Instruction counts"), every trial had a verdict at 5%,
    /// and a row's median moved by up to 33% even after the machine's drift read from its
    /// reference rows: the machine passes through states lasting seconds, and a row's samples
    /// see only a few of them. The decode scenario's instruction rows (``instructions``) judge
    /// the code's CPU work at 1%; a time judges what a count cannot see (memory traffic,
    /// waiting), and on such a machine only a change this large. On a quiet machine pass
    /// `--threshold 5`.
    public static let cpuBoundTiming = ChangeThreshold(relative: 0.4)

    /// The scenarios whose times are ``cpuBoundTiming``.
    static let cpuBoundScenarios: Set<String> = ["decode", "thumbnails"]

    /// The scenarios whose "ms" rows are ``eventLatency``.
    static let eventLatencyScenarios: Set<String> = ["cancellation", "coalescing"]
    /// The metrics of other scenarios that are ``eventLatency`` too: the loader scenario's
    /// cancels, timed like the cancellation scenario's.
    static let eventLatencyMetrics: Set<String> = ["cancel-to-server-close"]

    /// The default for `key`'s row measured in `unit`: ``memory`` for "MiB", ``instructions`` for
    /// instruction counts, ``cpuBoundTiming`` for the decode and thumbnail scenarios' times and
    /// rates, ``eventLatency`` for
    /// the cancellation and coalescing scenarios' "ms" rows and for any scenario's cancel-to-end
    /// rows, else ``timing``.
    public static func `default`(for key: RowKey, unit: String) -> ChangeThreshold {
        if unit == "MiB" { return memory }
        if key.metric == "instructions" { return instructions }
        if cpuBoundScenarios.contains(key.scenario) { return cpuBoundTiming }
        if unit == "ms" && (eventLatencyScenarios.contains(key.scenario) || eventLatencyMetrics.contains(key.metric)) {
            return eventLatency
        }
        return timing
    }

    /// The defaults in words, for `imago bench compare --help`: each rule's percentage and floor
    /// read from the constants above.
    public static var defaultsSummary: String {
        func percent(_ threshold: ChangeThreshold) -> String { CSVWriter.number(threshold.relative * 100) + "%" }
        return "\(percent(timing)); the decode and thumbnail scenarios' times and rates \(percent(cpuBoundTiming)), "
            + "their instruction counts \(percent(instructions)); MiB rows \(percent(memory)) with a "
            + "\(CSVWriter.number(memory.absolute)) MiB floor, like bench-check; the cancellation and coalescing latencies "
            + "and the loader scenario's cancels \(percent(eventLatency)) with a \(CSVWriter.number(eventLatency.absolute)) ms floor"
    }

    /// The smallest change of the median that counts, from a base median of `base`.
    public func allowance(base: Double) -> Double {
        max(relative * abs(base), absolute)
    }
}
