/// Percentiles of a set of timing samples (nearest-rank, so every reported value was observed).
public struct SampleStatistics: Sendable, Equatable {
    public let count: Int
    public let min: Double
    /// The lower quartile: with ``p75``, where the middle half of the samples lie (a spread that
    /// one outlier does not move, unlike min–max or ±σ).
    public let p25: Double
    public let p50: Double
    /// The upper quartile.
    public let p75: Double
    public let p90: Double
    public let p99: Double
    public let max: Double

    public init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func rank(_ p: Double) -> Double { sorted[Self.rankIndex(p, count: sorted.count)] }
        count = sorted.count
        min = sorted[0]
        p25 = rank(0.25)
        p50 = rank(0.50)
        p75 = rank(0.75)
        p90 = rank(0.90)
        p99 = rank(0.99)
        max = sorted[sorted.count - 1]
    }

    /// The index of the nearest-rank `p` percentile in `count` sorted samples (`count` > 0):
    /// the median of 15 is the 8th, of 4 the 2nd.
    public static func rankIndex(_ p: Double, count: Int) -> Int {
        Swift.min(Swift.max(Int((p * Double(count)).rounded(.up)) - 1, 0), count - 1)
    }
}
