import ImagoCorpus

/// Scenario 1: decode throughput (MP/s) per format and size, Imago against the bare C call
/// and the peers (`DecodePeers.all`), warm and in a cold process.
public struct DecodeScenario: BenchScenario {
    public let name = "decode"
    public let question = "How fast does each codec path decode, what does Imago's wrapper cost over the bare C call, and how does it compare with Pillow, libvips, OpenCV, simplejpeg and libspng?"

    public init() {}

    /// Sizes in megapixels: 0.25, 2, 12, 40 (quick: 0.25 and 12, the goal size).
    static func sizes(quick: Bool) -> [Double] { quick ? [0.25, 12] : [0.25, 2, 12, 40] }

    /// Full runs: 2 warm-up rounds, 8 to 30 rounds and at least 1 s per variant;
    /// quick: 1 warm-up round, 5 rounds: `bench compare`'s minimum for a verdict (with 3 to 5
    /// and 0.2 s, a 12 MP row stopped at 3 or 4 and no quick run could be compared).
    static func plan(quick: Bool) -> SamplingPlan {
        quick ? SamplingPlan(warmUp: 1, minSamples: RunComparison.minimumSamples, maxSamples: RunComparison.minimumSamples,
                             minSeconds: 0)
              : SamplingPlan(warmUp: 2, minSamples: 8, maxSamples: 30, minSeconds: 1.0)
    }

    /// Fresh processes per cold variant: 5 (quick: 3).
    static func coldProcesses(quick: Bool) -> Int { quick ? 3 : 5 }

    public func plannedUnits(quick: Bool) -> Int {
        Self.sizes(quick: quick).count * LargeInputs.Format.allCases.count
            * (2 * Self.plan(quick: quick).minSamples + Self.coldProcesses(quick: quick))
    }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let benchmark = DecodeBenchmark(plan: Self.plan(quick: context.quick),
                                        coldProcesses: Self.coldProcesses(quick: context.quick),
                                        executable: context.executable, peers: context.peers)
        var results: [BenchResult] = []
        for megapixels in Self.sizes(quick: context.quick) {
            for format in LargeInputs.Format.allCases {
                let input = try context.input(format, megapixels: megapixels)
                let rows = try benchmark.run(input) { context.progress.advance() }
                results += rows
                let imago = rows.first { $0.parameter("decoder") == "imago" && $0.parameter("state") == "fresh" }
                context.progress.log("\(input.kind) \(input.sizeLabel): imago fresh "
                                     + (imago?.p50.map { String(format: "%.1f MP/s", $0) } ?? "skipped"))
            }
        }
        return results
    }
}
