/// Two `imago bench` runs compared row by row: each metric's change of median with a 95%
/// bootstrap interval and a verdict, and the exit status of ``GateStatus``.
///
/// Rows match by scenario, parameters and metric. A row on one side only is listed (added or
/// removed), never dropped; a row skipped on both sides stays skipped.
public struct RunComparison: Sendable, Equatable {
    /// What became of one row.
    public enum Verdict: String, Sendable, Equatable {
        /// Better beyond the threshold, with an interval that excludes no change.
        case better
        /// Worse beyond the threshold, with an interval that excludes no change.
        case worse
        /// The interval includes no change, or the change is within the threshold.
        case withinNoise = "within noise"
        /// Fewer than ``RunComparison/minimumSamples`` samples on a side: no verdict.
        case tooFewSamples = "too few samples"
        /// Skipped in both runs.
        case skipped
        /// Measured in NEW only (absent or skipped in BASE).
        case added
        /// Measured in BASE only (absent or skipped in NEW): counted as a regression, like a
        /// baselined figure `bench-check` could not measure.
        case removed
    }

    /// One compared row.
    public struct Row: Sendable, Equatable {
        /// Which row of both runs this is.
        public let key: RowKey
        /// The unit of the medians (from NEW when measured there, else BASE).
        public let unit: String
        /// Which way is better, deciding whether a change is better or worse.
        public let direction: MetricDirection
        /// The base and new medians (nil where not measured).
        public let baseMedian: Double?, newMedian: Double?
        /// The sample counts (0 where not measured).
        public let baseCount: Int, newCount: Int
        /// `new / base − 1` of the medians; nil unless both are measured and base is not 0.
        public let change: Double?
        /// The 95% interval of `change` (the bootstrap interval of the difference over the base
        /// median); nil without a verdict or when base is 0.
        public let interval: ClosedRange<Double>?
        /// The threshold a change had to pass (the row's default or the override).
        public let threshold: ChangeThreshold
        /// What the comparison concluded for this row.
        public let verdict: Verdict
        /// Why a row was skipped, added or removed, from the runs' notes.
        public let note: String
    }

    /// Samples per side below which no verdict is given: 5. With 3 samples a resample's median
    /// is one of the 3 observed values, so a "95%" interval is a coarse guess; and 5 a side is
    /// where a rank test (Mann–Whitney U) can first reach two-sided p < 0.01 (4 a side: 0.029).
    public static let minimumSamples = 5

    /// BASE's rows in its order, then the rows only NEW has, in NEW's order.
    public let rows: [Row]

    /// Compares `new` with `base`; `threshold` overrides every row's default relative threshold
    /// (a fraction; nil: ``ChangeThreshold/default(for:unit:)``), keeping the row's absolute floor.
    public init(base: [BenchResult], new: [BenchResult], threshold: Double? = nil,
                bootstrap: MedianBootstrap = MedianBootstrap()) {
        let newByKey = Dictionary(new.map { (RowKey($0), $0) }, uniquingKeysWith: { first, _ in first })
        let baseKeys = Set(base.map(RowKey.init))
        var rows = base.map { row in
            Self.row(base: row, new: newByKey[RowKey(row)], threshold: threshold, bootstrap: bootstrap)
        }
        rows += new.filter { !baseKeys.contains(RowKey($0)) }.map {
            Self.row(base: nil, new: $0, threshold: threshold, bootstrap: bootstrap)
        }
        self.rows = rows
    }

    /// ``GateStatus/regression`` if a row is worse or removed, else ``GateStatus/improvement``
    /// if one is better or added, else ``GateStatus/within``.
    public var status: GateStatus {
        GateStatus.combining(regressed: rows.contains { $0.verdict == .worse || $0.verdict == .removed },
                             improved: rows.contains { $0.verdict == .better || $0.verdict == .added })
    }

    private static func row(base: BenchResult?, new: BenchResult?, threshold override: Double?,
                            bootstrap: MedianBootstrap) -> Row {
        let any = (new ?? base)!
        var threshold = ChangeThreshold.default(for: RowKey(any), unit: any.unit)
        if let override { threshold.relative = override }
        func make(_ verdict: Verdict, change: Double? = nil, interval: ClosedRange<Double>? = nil, note: String = "") -> Row {
            Row(key: RowKey(any), unit: any.unit, direction: any.direction, baseMedian: base?.p50, newMedian: new?.p50,
                baseCount: base?.samples.count ?? 0, newCount: new?.samples.count ?? 0, change: change,
                interval: interval, threshold: threshold, verdict: verdict, note: note)
        }
        guard let base, let baseMedian = base.p50 else {
            guard let new, new.p50 != nil else {
                return make(.skipped, note: [base?.skipped, new?.skipped].compactMap { $0 }.first ?? "")
            }
            return make(.added, note: base?.skipped.map { "skipped in BASE: \($0)" } ?? "not in BASE")
        }
        guard let new, let newMedian = new.p50 else {
            return make(.removed, note: new?.skipped.map { "skipped in NEW: \($0)" } ?? "not in NEW")
        }
        let difference = newMedian - baseMedian
        let change = baseMedian == 0 ? nil : difference / abs(baseMedian)
        guard min(base.samples.count, new.samples.count) >= minimumSamples else {
            return make(.tooFewSamples, change: change)
        }
        let differences = bootstrap.interval(base: base.samples, new: new.samples, key: RowKey(base))
        let interval = baseMedian == 0 ? nil
            : (differences.lowerBound / abs(baseMedian))...(differences.upperBound / abs(baseMedian))
        let significant = !differences.contains(0) && abs(difference) > threshold.allowance(base: baseMedian)
        guard significant else { return make(.withinNoise, change: change, interval: interval) }
        let improved = (difference < 0) == (base.direction == .lowerIsBetter)
        return make(improved ? .better : .worse, change: change, interval: interval)
    }
}
