/// How many times to run a measurement: warm-up runs first (discarded), then samples until
/// both the minimum count and the minimum time are reached, or the maximum count is.
public struct SamplingPlan: Sendable {
    /// Discarded runs before sampling (default 2: first-touch effects belong to cold runs).
    public var warmUp: Int
    /// At least this many samples (default 10).
    public var minSamples: Int
    /// At most this many samples (default 60).
    public var maxSamples: Int
    /// Keep sampling until this much time has been spent, in seconds (default 1.5).
    public var minSeconds: Double

    public init(warmUp: Int = 2, minSamples: Int = 10, maxSamples: Int = 60, minSeconds: Double = 1.5) {
        self.warmUp = warmUp
        self.minSamples = minSamples
        self.maxSamples = maxSamples
        self.minSeconds = minSeconds
    }

    /// A short plan for `--quick` runs.
    public static let quick = SamplingPlan(warmUp: 1, minSamples: 3, maxSamples: 10, minSeconds: 0.3)

    /// Runs `body` (which returns one sample, in milliseconds) according to the plan.
    public func run(_ body: () throws -> Double) rethrows -> [Double] {
        for _ in 0..<warmUp { _ = try body() }
        var samples: [Double] = []
        var spent = 0.0
        while samples.count < maxSamples && (samples.count < minSamples || spent < minSeconds * 1000) {
            let sample = try body()
            samples.append(sample)
            spent += sample
        }
        return samples
    }
}

/// Milliseconds taken by `body`.
public func measureMilliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let (seconds, attoseconds) = (ContinuousClock.now - start).components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}
