import ImagoRandom

/// A 95% confidence interval for the difference of two medians, `median(new) − median(base)`,
/// by the percentile bootstrap: each side is resampled with replacement on its own (the two
/// runs are independent), the difference of the resamples' medians recorded, and the 2.5th and
/// 97.5th percentiles of those differences are the interval. The model is criterion.rs's change
/// estimate; unlike a t-interval it assumes nothing about the shape of timing noise (skewed,
/// with outliers). Medians use ``SampleStatistics``' nearest-rank rule, so the point estimate is
/// the difference of the `p50` columns of the two `results.csv`.
public struct MedianBootstrap: Sendable, Equatable {
    /// Resamples per interval (default 10,000, criterion's order of magnitude): the interval's
    /// ends then move by well under a tenth of its width from one seed to another.
    public var resamples: Int
    /// The seed of the resampling, combined with each row's key, so every row's interval is the
    /// same in every run of the comparison (default 0x1A6A_60).
    public var seed: UInt64

    /// A bootstrap of `resamples` resamples per side (at least 1) from `seed`.
    public init(resamples: Int = 10_000, seed: UInt64 = 0x1A6A_60) {
        self.resamples = resamples
        self.seed = seed
    }

    /// The interval for `new − base` (both non-empty); `key` varies the seed per row.
    public func interval(base: [Double], new: [Double], key: RowKey) -> ClosedRange<Double> {
        var generator = SeededGenerator(seed: seed ^ Self.fingerprint(key.description))
        var baseSide = Side(base), newSide = Side(new)
        var differences = [Double](repeating: 0, count: resamples)
        for index in differences.indices {
            differences[index] = newSide.resampledMedian(using: &generator) - baseSide.resampledMedian(using: &generator)
        }
        differences.sort()
        let low = differences[SampleStatistics.rankIndex(0.025, count: resamples)]
        let high = differences[SampleStatistics.rankIndex(0.975, count: resamples)]
        return low...high
    }

    /// One run's samples, sorted once, and the buffer a resample is counted into.
    private struct Side {
        let sorted: [Double]
        let medianIndex: Int
        var draws: [Int]

        init(_ samples: [Double]) {
            sorted = samples.sorted()
            medianIndex = SampleStatistics.rankIndex(0.5, count: samples.count)
            draws = [Int](repeating: 0, count: samples.count)
        }

        /// The median of one resample drawn with replacement, without sorting it: count how
        /// often each sorted sample is drawn, then walk the counts to the median's rank — O(n)
        /// per resample, so 10,000 resamples cost milliseconds even in a debug build.
        mutating func resampledMedian(using generator: inout SeededGenerator) -> Double {
            let count = UInt64(sorted.count), medianIndex = medianIndex
            // One buffer access per resample: no copy-on-write check per draw, which in a debug
            // build (the tests') costs more than the draw itself.
            let index = draws.withUnsafeMutableBufferPointer { draws -> Int in
                draws.update(repeating: 0)
                // Modulo bias is below 2⁻⁵⁰ for any sample count a benchmark has.
                for _ in 0..<draws.count { draws[Int(generator.next() % count)] += 1 }
                var seen = 0
                for index in 0..<draws.count {
                    seen += draws[index]
                    if seen > medianIndex { return index }
                }
                return draws.count - 1
            }
            return sorted[index]
        }
    }

    /// FNV-1a of the UTF-8 bytes, then SplitMix's mix: stable across processes and platforms,
    /// unlike Swift's per-process `Hasher`.
    static func fingerprint(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return SeededGenerator.mix(hash)
    }
}
