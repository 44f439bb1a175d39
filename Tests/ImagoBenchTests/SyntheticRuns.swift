import Foundation
import ImagoBench
import ImagoRandom

/// Seeded synthetic bench runs for the comparison's tests: each row's samples are its median
/// times lognormal noise, the shape of real timings (skewed, multiplicative).
struct SyntheticRuns {
    /// One row of a synthetic run: its key, unit, direction and true median.
    struct Metric {
        let scenario: String
        let metric: String
        let unit: String
        let direction: MetricDirection
        let median: Double
    }

    /// A decode time, a throughput and a peak RSS, as `imago bench` reports them.
    static let metrics = [
        Metric(scenario: "fetch", metric: "decode-time", unit: "ms", direction: .lowerIsBetter, median: 120),
        Metric(scenario: "throughput", metric: "throughput", unit: "images/s", direction: .higherIsBetter, median: 850),
        Metric(scenario: "cache", metric: "peak-rss", unit: "MiB", direction: .lowerIsBetter, median: 210),
    ]

    /// The noise's standard deviation in log space: 3%, like a quiet machine's decode timings.
    /// The median of 15 such samples varies by about 1.25 × 3% / √15 ≈ 1%, the difference of two
    /// runs' medians by ≈ 1.4%: a planted 10% change then falls under the 5% threshold with
    /// probability about 10⁻⁴, and two runs of one build exceed it about as rarely. At 4% noise
    /// both become about 0.3% per row, and among these 20 seeds one planted change is missed.
    var sigma = 0.03
    var samplesPerRow = 15

    /// A run of `metrics` drawn with `seed`; `scale` multiplies the true median of the metrics
    /// it names (1.1 for a 10% larger value).
    func run(seed: UInt64, metrics: [Metric] = SyntheticRuns.metrics, scale: [String: Double] = [:]) -> [BenchResult] {
        var generator = SeededGenerator(seed: seed)
        return metrics.map { metric in
            let median = metric.median * (scale[metric.metric] ?? 1)
            let samples = (0..<samplesPerRow).map { _ in median * exp(sigma * Self.normal(&generator)) }
            return BenchResult(scenario: metric.scenario, parameters: "size=12MP", metric: metric.metric, unit: metric.unit,
                               direction: metric.direction, samples: samples)
        }
    }

    /// A standard normal variate (Box–Muller).
    static func normal(_ generator: inout SeededGenerator) -> Double {
        let u1 = Double(generator.next() >> 11 | 1) / Double(1 << 53), u2 = Double(generator.next() >> 11) / Double(1 << 53)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

extension BenchResult {
    /// A decode row of one sample (`rate` MP/s), or skipped as "DECODER not installed" when nil.
    static func decodeRow(_ format: String, _ size: String, _ decoder: String, _ state: String, _ rate: Double?) -> BenchResult {
        let parameters = "format=\(format) size=\(size) decoder=\(decoder) state=\(state)"
        guard let rate else {
            return BenchResult(scenario: "decode", parameters: parameters, metric: "throughput", unit: "MP/s",
                               direction: .higherIsBetter, skipped: "\(decoder) not installed")
        }
        return BenchResult(scenario: "decode", parameters: parameters, metric: "throughput", unit: "MP/s",
                           direction: .higherIsBetter, samples: [rate])
    }
}
