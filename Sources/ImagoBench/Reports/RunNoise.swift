/// Whether other work on the machine made a run noisy, judged from the load averages read at
/// its start and end: a flag in `report.md`, so nobody compares a busy run's numbers with a
/// quiet one's without knowing.
///
/// The rule: noisy when, at the start, the 1-minute load average was at least half the cores
/// (work other than the bench was running before it began), or when, at the end, it was above
/// the cores (more runnable threads than the bench's own scenarios keep busy: they use at most
/// one per core). A load average says nothing about which process was busy, so a quiet verdict
/// is no proof; interleaving variants within a run is what keeps a comparison fair.
public enum RunNoise {
    /// Why the run counts as noisy, or nil when it does not (or the averages are unknown).
    /// - Parameters:
    ///   - start: /proc/loadavg's first three fields at the start ("0.52 0.61 0.70").
    ///   - end: the same at the end.
    public static func reason(start: String, end: String, cores: Int) -> String? {
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

    /// The 1-minute average of a /proc/loadavg line, nil when it is not one.
    static func oneMinute(_ loadAverages: String) -> Double? {
        loadAverages.split(separator: " ").first.flatMap { Double($0) }
    }
}
