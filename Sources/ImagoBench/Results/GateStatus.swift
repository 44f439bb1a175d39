/// The exit statuses of Imago's regression gates, `imago bench-check` and `imago bench compare`:
/// one definition, so a script treats both the same way.
public enum GateStatus: Int32, Sendable, Equatable {
    /// Nothing regressed and nothing improved beyond its threshold (or tolerance).
    case within = 0
    /// Something regressed, or a figure that was there before is no longer measured.
    case regression = 2
    /// Nothing regressed, but something improved beyond its threshold or is new: the baseline
    /// is worth updating.
    case improvement = 4

    /// Regression if any row regressed, else improvement if any improved, else within.
    public static func combining(regressed: Bool, improved: Bool) -> GateStatus {
        regressed ? .regression : improved ? .improvement : .within
    }
}
