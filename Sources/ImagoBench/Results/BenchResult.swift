/// Which way a metric improves, stated in every CSV row so a reader never has to guess.
public enum MetricDirection: String, Sendable, Codable, Equatable {
    case lowerIsBetter = "lower is better"
    case higherIsBetter = "higher is better"
}

/// One row of a report: a metric of one scenario under one set of parameters, summarised by
/// its percentiles, or skipped with a reason (never a made-up value).
public struct BenchResult: Sendable, Equatable {
    /// The scenario's command-line name, e.g. "decode", "fetch".
    public let scenario: String
    /// What distinguishes this row within the scenario, e.g. "format=jpeg-baseline size=12MP variant=imago-fresh".
    public let parameters: String
    /// What was measured, e.g. "throughput", "peak-rss".
    public let metric: String
    /// Unit of every statistic, e.g. "MP/s", "ms", "MiB", "count", "ratio".
    public let unit: String
    public let direction: MetricDirection
    /// Nil when skipped.
    public let statistics: SampleStatistics?
    /// Every sample, in the order measured (empty when skipped): written to `samples.csv` so a
    /// later `imago bench compare` can test whether a change is more than noise.
    public let samples: [Double]
    /// Why there is no measurement (nil when measured).
    public let skipped: String?

    public init(scenario: String, parameters: String, metric: String, unit: String,
                direction: MetricDirection, samples: [Double]) {
        self.scenario = scenario
        self.parameters = parameters
        self.metric = metric
        self.unit = unit
        self.direction = direction
        self.statistics = SampleStatistics(samples)
        self.samples = samples
        self.skipped = statistics == nil ? "no samples" : nil
    }

    public init(scenario: String, parameters: String, metric: String, unit: String,
                direction: MetricDirection, skipped reason: String) {
        self.scenario = scenario
        self.parameters = parameters
        self.metric = metric
        self.unit = unit
        self.direction = direction
        self.statistics = nil
        self.samples = []
        self.skipped = reason
    }

    /// The median, or nil when skipped.
    public var p50: Double? { statistics?.p50 }

    /// The value of `name` in `parameters` ("size=12MP" → "12MP" for "size").
    public func parameter(_ name: String) -> String? {
        Parameters.value(of: name, in: parameters)
    }
}

/// Builds and reads the `key=value key=value` parameter strings of result rows.
public enum Parameters {
    public static func make(_ pairs: KeyValuePairs<String, String>) -> String {
        pairs.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    public static func value(of name: String, in parameters: String) -> String? {
        for pair in parameters.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == name { return String(parts[1]) }
        }
        return nil
    }
}

public struct BenchError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
