/// Percentiles of a set of timing samples (nearest-rank, so every reported value was observed).
public struct SampleStatistics: Sendable, Equatable {
    public let count: Int
    public let min: Double
    public let p50: Double
    public let p90: Double
    public let p99: Double
    public let max: Double

    public init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Double {
            let index = Int((p * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.min(Swift.max(index, 0), sorted.count - 1)]
        }
        count = sorted.count
        min = sorted[0]
        p50 = rank(0.50)
        p90 = rank(0.90)
        p99 = rank(0.99)
        max = sorted[sorted.count - 1]
    }
}
