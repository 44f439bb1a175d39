import ImagoBench

/// The loader scenario's rows: each figure of the loader beside the raw control's and the
/// loader's overhead over it, or "n/a" with the reason when the loader lacks what is measured.
enum LoaderRows {
    /// The scenario's `--scenario`/CSV name.
    static let scenario = ControlOverhead.loaderScenario
    /// The `variant` of the loader's own rows and of the raw control's (the throughput
    /// scenario's name for the control).
    static let loaderVariant = "loader", controlVariant = ControlOverhead.controlTransport

    /// A figure of the loader and of the control, measured round by round, and one overhead
    /// ratio per round: loader time / control time (for rates, control rate / loader rate, so a
    /// ratio above 1 always means the loader costs more). `includeControl` (default true) adds the
    /// control's row, `includeOverhead` (default true) the ratios' row.
    static func compared(_ parameters: String, metric: String, unit: String, direction: MetricDirection,
                         loader: [Double], control: [Double], includeControl: Bool = true,
                         includeOverhead: Bool = true) -> [BenchResult] {
        let ratios = direction == .lowerIsBetter
            ? ControlOverhead.ratios(pipelineTimes: loader, controlTimes: control)
            : ControlOverhead.ratios(pipelineRates: loader, controlRates: control)
        return [BenchResult(scenario: scenario, parameters: parameters + " variant=\(loaderVariant)", metric: metric,
                            unit: unit, direction: direction, samples: loader)]
            + (includeControl ? [BenchResult(scenario: scenario, parameters: parameters + " variant=\(controlVariant)",
                                             metric: metric, unit: unit, direction: direction, samples: control)] : [])
            + (includeOverhead ? [BenchResult(scenario: scenario, parameters: parameters, metric: ControlOverhead.metric,
                                              unit: "ratio", direction: .lowerIsBetter, samples: ratios)] : [])
    }

    /// The loader's row and its overhead row, both "n/a: `reason`": never a made-up number.
    static func notApplicable(_ parameters: String, metric: String, unit: String, direction: MetricDirection,
                              reason: String) -> [BenchResult] {
        [BenchResult(scenario: scenario, parameters: parameters + " variant=\(loaderVariant)", metric: metric, unit: unit,
                     direction: direction, skipped: "n/a: \(reason)"),
         BenchResult(scenario: scenario, parameters: parameters, metric: ControlOverhead.metric, unit: "ratio",
                     direction: .lowerIsBetter, skipped: "n/a: \(reason)")]
    }
}
