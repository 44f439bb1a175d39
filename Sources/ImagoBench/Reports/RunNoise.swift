/// Whether other work on the machine made a run noisy: a flag in `report.md` and `report.html`,
/// so nobody compares a busy run's numbers with a quiet one's without knowing.
///
/// The rule, where the CPU time of the run is known (``CPUSnapshot``, Linux): noisy when other
/// processes used at least a tenth of a core on average while it ran (``busyOtherCores``), or
/// the hypervisor took at least 2% of the CPUs' time (``busyStolenShare``). Else, from the load
/// averages read at its start and end: noisy when, at the start, the 1-minute load average was
/// at least half the cores, or when, at the end, it was above the cores. A load average says
/// nothing about which process was busy, and still holds a run's predecessor (a series of runs
/// one after another was flagged from the second on), so it only stands in. A quiet verdict
/// is no proof: interleaving variants within a run is what keeps a comparison fair.
public enum RunNoise {
    /// What ran beside a run, from its CPU time.
    public struct OtherActivity: Sendable, Equatable {
        /// CPU seconds of other processes per second of the run: cores' worth of other work.
        public var otherCores: Double
        /// The share of the CPUs' time the hypervisor took (`steal`), 0...1.
        public var stolenShare: Double

        /// The activity measured: `otherCores` cores of other work, `stolenShare` of the time stolen.
        public init(otherCores: Double, stolenShare: Double) {
            self.otherCores = otherCores
            self.stolenShare = stolenShare
        }

        /// "0.02 cores of other work on average, 0.1% of the CPU time stolen by the hypervisor",
        /// for the report's machine table.
        public var summary: String {
            String(format: "%.2f cores of other work on average, %.1f%% of the CPU time stolen by the hypervisor",
                   otherCores, stolenShare * 100)
        }
    }

    /// Other processes' average use, in cores, from which a run is noisy (0.1).
    public static let busyOtherCores = 0.1
    /// The hypervisor's share of the CPU time from which a run is noisy (0.02).
    public static let busyStolenShare = 0.02

    /// Why the run counts as noisy, or nil when it does not (or nothing is known).
    /// - Parameters:
    ///   - start: /proc/loadavg's first three fields at the start ("0.52 0.61 0.70").
    ///   - end: the same at the end.
    ///   - activity: what the CPU time says ran beside it; nil where unknown (then the load
    ///     averages decide).
    public static func reason(start: String, end: String, cores: Int, activity: OtherActivity? = nil) -> String? {
        if let activity {
            if activity.otherCores >= busyOtherCores {
                return String(format: "other processes used %.2f cores on average while it ran", activity.otherCores)
            }
            if activity.stolenShare >= busyStolenShare {
                return String(format: "the hypervisor took %.1f%% of the CPU time while it ran", activity.stolenShare * 100)
            }
            return nil
        }
        guard cores > 0 else { return nil }
        let threshold = Double(cores)
        if let before = oneMinute(start), before >= threshold / 2 {
            return "the 1-minute load average was \(before) at the start, at least half the \(cores) cores: other work was running"
        }
        if let after = oneMinute(end), after > threshold {
            return "the 1-minute load average was \(after) at the end, above the \(cores) cores the bench can keep busy"
        }
        return nil
    }

    /// The machine table's rows about the run's conditions (Markdown): the load averages, and
    /// what ran beside it where that is known. One place for both reports.
    static func machineRows(loadAverages: (start: String, end: String), activity: OtherActivity?) -> String {
        "| load average (1/5/15 min) | start \(loadAverages.start), end \(loadAverages.end) |"
            + (activity.map { "\n| beside the run | \($0.summary) |" } ?? "")
    }

    /// The 1-minute average of a /proc/loadavg line, nil when it is not one.
    static func oneMinute(_ loadAverages: String) -> Double? {
        loadAverages.split(separator: " ").first.flatMap { Double($0) }
    }
}
