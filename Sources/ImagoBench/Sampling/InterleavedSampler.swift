/// Samples several variants of one measurement round-robin (A, B, C, A, B, C, ...) rather than
/// all of A then all of B, so a slow drift of the machine (another build starting, thermal
/// throttling, a neighbour's cache pressure) lands on every variant alike and the ratios
/// between them stay fair.
public struct InterleavedSampler: Sendable {
    /// Warm-up rounds, sample counts and the time floor (see `SamplingPlan`; the time floor
    /// applies to the average time spent per variant).
    public var plan: SamplingPlan

    public init(plan: SamplingPlan) {
        self.plan = plan
    }

    /// A variant: its name and a body that returns one sample in milliseconds.
    public struct Variant {
        public let name: String
        public let sample: () throws -> Double
        public init(_ name: String, _ sample: @escaping () throws -> Double) {
            self.name = name
            self.sample = sample
        }
    }

    /// Runs `plan.warmUp` discarded rounds, then rounds until every variant has
    /// `plan.minSamples` samples and the average time per variant reaches `plan.minSeconds`,
    /// or `plan.maxSamples` rounds were taken. `afterRound` receives the number of rounds done.
    /// A variant that throws stops sampling for itself only; its error is returned instead.
    public func run(_ variants: [Variant], afterRound: (Int) -> Void = { _ in }) -> [String: Result<[Double], any Error>] {
        var samples: [String: [Double]] = [:]
        var failures: [String: any Error] = [:]
        var spent = 0.0
        var rounds = 0
        func sampleOnce(_ variant: Variant, keep: Bool) {
            guard failures[variant.name] == nil else { return }
            do {
                let value = try variant.sample()
                if keep {
                    samples[variant.name, default: []].append(value)
                    spent += value
                }
            } catch {
                failures[variant.name] = error
            }
        }
        for _ in 0..<plan.warmUp {
            for variant in variants { sampleOnce(variant, keep: false) }
        }
        let live = { max(1, variants.count - failures.count) }
        while rounds < plan.maxSamples
                && (rounds < plan.minSamples || spent / Double(live()) < plan.minSeconds * 1000)
                && failures.count < variants.count {
            for variant in variants { sampleOnce(variant, keep: true) }
            rounds += 1
            afterRound(rounds)
        }
        var results: [String: Result<[Double], any Error>] = [:]
        for variant in variants {
            if let failure = failures[variant.name] {
                results[variant.name] = .failure(failure)
            } else {
                results[variant.name] = .success(samples[variant.name] ?? [])
            }
        }
        return results
    }
}
