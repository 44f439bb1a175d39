/// What matches a row across runs: the scenario, its parameters and the metric.
public struct RowKey: Hashable, Sendable, CustomStringConvertible {
    /// The scenario's name, e.g. "decode".
    public let scenario: String
    /// The row's `key=value` parameters, e.g. "format=png size=12MP".
    public let parameters: String
    /// What was measured, e.g. "throughput".
    public let metric: String

    /// The key of `result`.
    public init(_ result: BenchResult) {
        self.init(scenario: result.scenario, parameters: result.parameters, metric: result.metric)
    }

    /// The key of a row with these three fields.
    public init(scenario: String, parameters: String, metric: String) {
        self.scenario = scenario
        self.parameters = parameters
        self.metric = metric
    }

    /// "scenario [parameters] metric", or "scenario metric" without parameters: how reports and
    /// errors name the row.
    public var description: String {
        parameters.isEmpty ? "\(scenario) \(metric)" : "\(scenario) [\(parameters)] \(metric)"
    }
}
