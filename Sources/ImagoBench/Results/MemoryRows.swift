/// Result rows from fresh-process memory probes, in MiB: the peak resident growth during the
/// work, the process's absolute peak, what the work left resident afterwards, and the malloc
/// bytes it left in use.
public enum MemoryRows {
    static let mebibyte = 1024.0 * 1024.0

    public static func rows(scenario: String, parameters: String,
                            _ probes: Result<[MemoryProbeResult], any Error>) -> [BenchResult] {
        let metrics: [(String, (MemoryProbeResult) -> Int)] = [
            ("peak-rss-growth", \.peakGrowthBytes),
            ("peak-rss", \.peakResidentBytes),
            ("held-after", \.heldAfterBytes),
            ("malloc-held", \.mallocHeldBytes),
        ]
        return metrics.map { metric, value in
            switch probes {
            case .success(let results):
                BenchResult(scenario: scenario, parameters: parameters, metric: metric, unit: "MiB",
                            direction: .lowerIsBetter, samples: results.map { Double(value($0)) / mebibyte })
            case .failure(let error):
                BenchResult(scenario: scenario, parameters: parameters, metric: metric, unit: "MiB",
                            direction: .lowerIsBetter, skipped: "\(error)")
            }
        }
    }
}

extension BenchResult {
    /// A row from a sampler outcome: the samples, or the error as the skip reason.
    public init(scenario: String, parameters: String, metric: String, unit: String,
                direction: MetricDirection, outcome: Result<[Double], any Error>?) {
        switch outcome {
        case .success(let samples)?:
            self.init(scenario: scenario, parameters: parameters, metric: metric, unit: unit,
                      direction: direction, samples: samples)
        case .failure(let error)?:
            self.init(scenario: scenario, parameters: parameters, metric: metric, unit: unit,
                      direction: direction, skipped: "\(error)")
        case nil:
            self.init(scenario: scenario, parameters: parameters, metric: metric, unit: unit,
                      direction: direction, skipped: "not run")
        }
    }
}
