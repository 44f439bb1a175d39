/// Compares a memory-gate run with the baseline, entry by entry, and decides the exit status:
/// 0 when everything is within tolerance, 2 when anything regressed (or a baselined figure
/// could not be measured), 4 when nothing regressed but something improved beyond tolerance
/// or is not in the baseline yet (run `make bench-baseline`).
public struct BaselineComparison: Sendable, Equatable {
    public enum Verdict: String, Sendable, Equatable {
        case within
        case regression
        case improvement
        /// In the baseline but not measured this time.
        case missing
        /// Measured but not in the baseline.
        case new
    }

    public struct Row: Sendable, Equatable {
        public let scenario: String
        public let metric: String
        public let baselineBytes: Int?
        public let measuredBytes: Int?
        public let allowanceBytes: Int?
        public let verdict: Verdict
    }

    public let rows: [Row]

    /// Exit statuses (``GateStatus``'s raw values).
    public static let exitWithin = GateStatus.within.rawValue, exitRegression = GateStatus.regression.rawValue,
                      exitImprovement = GateStatus.improvement.rawValue

    /// `measured` maps "scenario metric" pairs to bytes.
    public init(baseline: Baseline, measured: [MemoryGate.Measurement]) {
        var rows: [Row] = []
        for entry in baseline.entries {
            let allowance = (entry.tolerance ?? baseline.tolerance).allowance(for: entry.bytes)
            guard let value = measured.first(where: { $0.scenario == entry.scenario && $0.metric == entry.metric })?.bytes else {
                rows.append(Row(scenario: entry.scenario, metric: entry.metric, baselineBytes: entry.bytes,
                                measuredBytes: nil, allowanceBytes: allowance, verdict: .missing))
                continue
            }
            let verdict: Verdict = value > entry.bytes + allowance ? .regression
                : value < entry.bytes - allowance ? .improvement : .within
            rows.append(Row(scenario: entry.scenario, metric: entry.metric, baselineBytes: entry.bytes,
                            measuredBytes: value, allowanceBytes: allowance, verdict: verdict))
        }
        for extra in measured where !baseline.entries.contains(where: { $0.scenario == extra.scenario && $0.metric == extra.metric }) {
            rows.append(Row(scenario: extra.scenario, metric: extra.metric, baselineBytes: nil,
                            measuredBytes: extra.bytes, allowanceBytes: nil, verdict: .new))
        }
        self.rows = rows
    }

    public var exitStatus: Int32 {
        GateStatus.combining(regressed: rows.contains { $0.verdict == .regression || $0.verdict == .missing },
                             improved: rows.contains { $0.verdict == .improvement || $0.verdict == .new }).rawValue
    }

    /// One aligned line per row: scenario, metric, baseline, measured, allowed band, verdict.
    public var lines: [String] {
        func mib(_ bytes: Int?) -> String { bytes.map { String(format: "%.2f MiB", Double($0) / 1_048_576) } ?? "—" }
        return [Self.line(["scenario", "metric", "baseline", "measured", "allowed ±", "verdict"])] + rows.map { row in
            Self.line([row.scenario, row.metric, mib(row.baselineBytes), mib(row.measuredBytes), mib(row.allowanceBytes),
                       row.verdict.rawValue.uppercased()])
        }
    }

    /// What the exit status means, for the last line of the output.
    public var conclusion: String {
        switch exitStatus {
        case Self.exitRegression: "bench-check: memory regression (exit 2)"
        case Self.exitImprovement: "bench-check: improved beyond tolerance or new figures; run `make bench-baseline` and commit Reports/baseline.json (exit 4)"
        default: "bench-check: every figure within tolerance (exit 0)"
        }
    }

    /// Column widths of bench-check's table (the last column is not padded).
    static let columnWidths = [34, 17, 13, 13, 13]

    /// One line of bench-check's table: scenario, metric, baseline (or requirement), measured,
    /// allowance, verdict; shared with the pressure gate's rows so they line up.
    public static func line(_ cells: [String]) -> String {
        zip(cells, columnWidths + [0]).map { text, width in
            width == 0 ? text : text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }.joined()
    }
}
