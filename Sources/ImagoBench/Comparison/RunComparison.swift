import Foundation

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
        /// A row of code neither build changes (``MachineDrift``: the bare C call, a peer):
        /// shown with its change, which is the machine's, and never judged.
        case reference
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
        /// Why a row was skipped, added or removed, from the runs' notes; for a row judged after
        /// the machine's drift, the factor and the change as measured.
        public let note: String
        /// The factor NEW's samples were divided by before judging (``MachineDrift``); nil when
        /// none was applied.
        public let drift: Double?
    }

    /// Samples per side below which no verdict is given: 5. With 3 samples a resample's median
    /// is one of the 3 observed values, so a "95%" interval is a coarse guess; and 5 a side is
    /// where a rank test (Mann–Whitney U) can first reach two-sided p < 0.01 (4 a side: 0.029).
    public static let minimumSamples = 5

    /// BASE's rows in its order, then the rows only NEW has, in NEW's order.
    public let rows: [Row]

    /// Compares `new` with `base`; `threshold` overrides every row's default relative threshold
    /// (a fraction; nil: ``ChangeThreshold/default(for:unit:)``), keeping the row's absolute floor.
    /// `correctsDrift` (default true) judges each row after the machine's drift its references
    /// show (``MachineDrift``) and leaves the references unjudged; false judges every row as measured.
    public init(base: [BenchResult], new: [BenchResult], threshold: Double? = nil, correctsDrift: Bool = true,
                bootstrap: MedianBootstrap = MedianBootstrap()) {
        let newByKey = Dictionary(new.map { (RowKey($0), $0) }, uniquingKeysWith: { first, _ in first })
        let baseKeys = Set(base.map(RowKey.init))
        let drift = correctsDrift ? MachineDrift(base: base, new: new) : nil
        func compared(_ base: BenchResult?, _ new: BenchResult?) -> Row {
            let key = RowKey((new ?? base)!)
            let row = Self.row(base: base, new: new, threshold: threshold, drift: drift?.factor(for: key),
                               bootstrap: bootstrap)
            guard drift != nil, MachineDrift.isReference(key), row.verdict != .skipped else { return row }
            return row.with(.reference)
        }
        var rows = base.map { compared($0, newByKey[RowKey($0)]) }
        rows += new.filter { !baseKeys.contains(RowKey($0)) }.map { compared(nil, $0) }
        self.rows = rows
    }

    /// ``GateStatus/regression`` if a row is worse or removed, else ``GateStatus/improvement``
    /// if one is better or added, else ``GateStatus/within``.
    public var status: GateStatus {
        GateStatus.combining(regressed: rows.contains { $0.verdict == .worse || $0.verdict == .removed },
                             improved: rows.contains { $0.verdict == .better || $0.verdict == .added })
    }

    private static func row(base: BenchResult?, new: BenchResult?, threshold override: Double?,
                            drift: MachineDrift.Factor?, bootstrap: MedianBootstrap) -> Row {
        let any = (new ?? base)!
        var threshold = ChangeThreshold.default(for: RowKey(any), unit: any.unit)
        if let override { threshold.relative = override }
        // A reference's own drift is what it measured: it is shown as measured.
        let applied = MachineDrift.isReference(RowKey(any)) ? nil : drift
        func make(_ verdict: Verdict, change: Double? = nil, interval: ClosedRange<Double>? = nil, note: String = "") -> Row {
            Row(key: RowKey(any), unit: any.unit, direction: any.direction, baseMedian: base?.p50, newMedian: new?.p50,
                baseCount: base?.samples.count ?? 0, newCount: new?.samples.count ?? 0, change: change,
                interval: interval, threshold: threshold, verdict: verdict, note: note, drift: applied?.value)
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
        // Judged after the machine's drift: NEW as if it had run on BASE's machine.
        let factor = applied.map { $0.value > 0 ? $0.value : 1 } ?? 1
        let newSamples = factor == 1 ? new.samples : new.samples.map { $0 / factor }
        let difference = newMedian / factor - baseMedian
        let change = baseMedian == 0 ? nil : difference / abs(baseMedian)
        let note = applied.map { drift in
            "judged after the machine's drift: NEW ÷ \(CSVWriter.number(drift.value)) from \(drift.references) "
                + "reference row(s), which strayed up to \(String(format: "%.1f%%", drift.spread * 100)) from it; "
                + "as measured \(ComparisonReport.percent(baseMedian == 0 ? nil : newMedian / baseMedian - 1))"
        } ?? ""
        // A change within the references' own spread is one the machine could have made.
        let allowance = max(threshold.allowance(base: baseMedian), (applied?.spread ?? 0) * abs(baseMedian))
        guard min(base.samples.count, new.samples.count) >= minimumSamples else {
            return make(.tooFewSamples, change: change, note: note)
        }
        let differences = bootstrap.interval(base: base.samples, new: newSamples, key: RowKey(base))
        let interval = baseMedian == 0 ? nil
            : (differences.lowerBound / abs(baseMedian))...(differences.upperBound / abs(baseMedian))
        let significant = !differences.contains(0) && abs(difference) > allowance
        guard significant else { return make(.withinNoise, change: change, interval: interval, note: note) }
        let improved = (difference < 0) == (base.direction == .lowerIsBetter)
        return make(improved ? .better : .worse, change: change, interval: interval, note: note)
    }
}

extension RunComparison.Row {
    /// This row with `verdict` instead of its own.
    func with(_ verdict: RunComparison.Verdict) -> Self {
        Self(key: key, unit: unit, direction: direction, baseMedian: baseMedian, newMedian: newMedian,
             baseCount: baseCount, newCount: newCount, change: change, interval: interval, threshold: threshold,
             verdict: verdict, note: note, drift: drift)
    }
}
