import Foundation

/// The pipeline's overhead over the raw control (`RawControl`), as rows of the throughput
/// scenario: pipeline time / control time for the same work, round by round (each round ran
/// both, interleaved, so a drift of the machine lands on both alike). Lower is better; 1.0 is no
/// overhead, 1.1 is 10% more time than the control.
public enum ControlOverhead {
    /// The metric of every overhead row.
    public static let metric = "overhead-vs-control"
    /// The `transport` value of the control's own throughput rows.
    public static let controlTransport = "raw-control"
    /// The `cache` value of the overhead rows for the default pipeline (memory cache, no disk
    /// cache) and for a pipeline with a cold disk cache.
    public static let memoryCache = "memory", diskCache = "memory+disk"

    /// The scenario of any loader against the raw control (`imago bench --subject`): written by
    /// ImagoLoaderBench's rows, read by the report's summary.
    public static let loaderScenario = "loader"
    /// The metric of the disk-cached pipeline's overhead over the raw control that writes each
    /// body to disk too (`RawDiskWrite`): what the loader costs beside the disk's own work.
    public static let diskControlMetric = "overhead-vs-disk-control"
    /// The `transport` value of that control's throughput rows.
    public static let diskControlTransport = "raw-control+disk-write"

    /// One ratio per round: `pipeline[i] / control[i]` (times, any one unit); rounds missing on
    /// either side are dropped.
    public static func ratios(pipelineTimes: [Double], controlTimes: [Double]) -> [Double] {
        zip(pipelineTimes, controlTimes).compactMap { pipeline, control in control > 0 ? pipeline / control : nil }
    }

    /// The same from rates (images/s): a time per image is 1 / rate, so the ratio is
    /// `control[i] / pipeline[i]`.
    public static func ratios(pipelineRates: [Double], controlRates: [Double]) -> [Double] {
        zip(pipelineRates, controlRates).compactMap { pipeline, control in pipeline > 0 ? control / pipeline : nil }
    }

    /// An overhead row of the throughput scenario (`metric`: over the plain control by default).
    public static func row(_ parameters: String, _ ratios: [Double], metric: String = metric) -> BenchResult {
        BenchResult(scenario: "throughput", parameters: parameters, metric: metric, unit: "ratio",
                    direction: .lowerIsBetter, samples: ratios)
    }
}
