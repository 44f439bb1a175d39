import Foundation

/// The goals against the raw control (issue 27): the pipeline's time over the control's for the
/// same work, from the throughput scenario's `overhead-vs-control` rows (medians of the per-round
/// ratios). A goal whose row did not run is "not measured", never guessed.
enum ControlGoals {
    /// Loads in flight at which the distinct-image goals are stated.
    static let concurrency = 8
    /// The ceilings: memory cache only, with a disk cache, and one 12 MP load's time to pixels.
    static let memoryCeiling = 1.1, diskCeiling = 1.15, largeCeiling = 1.05

    static func rows(_ results: [BenchResult]) -> [GoalRow] {
        [
            goal("pipeline over control at concurrency \(concurrency) (memory cache, no disk cache)", memoryCeiling,
                 ratio(results, ["concurrency": "\(concurrency)", "cache": ControlOverhead.memoryCache])),
            goal("pipeline over control at concurrency \(concurrency) (with a disk cache)", diskCeiling,
                 ratio(results, ["concurrency": "\(concurrency)", "cache": ControlOverhead.diskCache])),
            goal("single 12 MP load, time to pixels, over the control", largeCeiling,
                 ratio(results, ["load": "single"])),
        ]
    }

    /// The median overhead of the first row matching every parameter in `match`.
    static func ratio(_ results: [BenchResult], _ match: [String: String],
                      metric: String = ControlOverhead.metric) -> Double? {
        results.first { row in
            row.scenario == "throughput" && row.metric == metric
                && match.allSatisfy { row.parameter($0.key) == $0.value }
        }?.p50
    }

    static func goal(_ goal: String, _ ceiling: Double, _ measured: Double?) -> GoalRow {
        let target = String(format: "≤ %.2f×", ceiling)
        guard let measured else { return GoalRow(goal: goal, target: target, measured: "—", verdict: .notMeasured) }
        return GoalRow(goal: goal, target: target, measured: String(format: "%.2f×", measured),
                       verdict: measured <= ceiling ? .pass : .miss)
    }

    /// The report's summary line: the overheads that were measured.
    static func summary(_ results: [BenchResult]) -> (String, String)? {
        let parts = [
            ratio(results, ["concurrency": "\(concurrency)", "cache": ControlOverhead.memoryCache])
                .map { String(format: "%.2f× at concurrency %d (memory cache)", $0, concurrency) },
            ratio(results, ["concurrency": "\(concurrency)", "cache": ControlOverhead.diskCache])
                .map { String(format: "%.2f× with a disk cache", $0) },
            ratio(results, ["concurrency": "\(concurrency)", "cache": ControlOverhead.diskCache],
                  metric: ControlOverhead.diskControlMetric)
                .map { String(format: "%.2f× with a disk cache over a control that writes each body to disk too", $0) },
            ratio(results, ["load": "single"]).map { String(format: "%.2f× for one 12 MP load's time to pixels", $0) },
        ].compactMap { $0 }
        guard !parts.isEmpty else { return nil }
        return ("Loader overhead: the pipeline's time over the raw control's (fetch + decode by hand)",
                parts.joined(separator: "; "))
    }
}
