import ImagoCorpus

/// Scenario 1: decode throughput (MP/s) per format and size, Imago against the bare C call
/// and the peers (`DecodePeers.all`), warm and in a cold process (the peers up to 12 MP, cold
/// processes at 12 MP: a full run takes about 5 minutes, where measuring everything at every
/// size took 13).
public struct DecodeScenario: BenchScenario {
    public let name = "decode"
    public let question = "How fast does each codec path decode, what does Imago's wrapper cost over the bare C call, and how does it compare with Pillow, libvips, OpenCV, simplejpeg and libspng?"

    public init() {}

    /// Sizes in megapixels: 0.25, 2, 12, 40 (quick: 0.25 and 12, the goal size).
    static func sizes(quick: Bool) -> [Double] { quick ? [0.25, 12] : [0.25, 2, 12, 40] }

    /// The largest size the peers are measured at (12 MP, where the goals and the summary's
    /// ratios are stated). At 40 MP only Imago and the bare C call run: the rows ask whether
    /// Imago's rate holds at that size, and the peers' 40 MP decodes (up to 2 s each, in warm
    /// loops and cold processes) took 5 of the scenario's 13 minutes.
    static let largestPeerSize = 12.0
    /// Sizes with cold-process rows: 12 MP, where the goals compare Imago's first decode in a
    /// new process with Pillow's. Elsewhere a cold row repeats the warm one plus first-touch
    /// costs the 12 MP row already shows, and the fresh interpreters they need (a few hundred
    /// per run) took 4 of the scenario's 13 minutes.
    static let coldSizes: Set<Double> = [12]

    /// Full runs: 1 warm-up round, then rounds until every variant has 8 samples (5 at 40 MP,
    /// where a round of four decodes takes up to 6 s) and 0.5 s of sample time, at most 20; a
    /// batched sample counts its mean, so inputs below 2 MP stop at 20. Quick: 1 warm-up round,
    /// 5 rounds: `bench compare`'s minimum for a verdict (with 3 to 5 and 0.2 s, a 12 MP row
    /// stopped at 3 or 4 and no quick run could be compared). More rounds within a run narrow
    /// its intervals but not the run-to-run drift that decides an A/A comparison.
    static func plan(quick: Bool, megapixels: Double) -> SamplingPlan {
        quick ? SamplingPlan(warmUp: 1, minSamples: RunComparison.minimumSamples, maxSamples: RunComparison.minimumSamples,
                             minSeconds: 0)
              : SamplingPlan(warmUp: 1, minSamples: megapixels > largestPeerSize ? RunComparison.minimumSamples : 8,
                             maxSamples: 20, minSeconds: 0.5)
    }

    /// Fresh processes per cold variant: 5 (quick: 3) at `coldSizes`, none elsewhere.
    static func coldProcesses(quick: Bool, megapixels: Double) -> Int {
        guard coldSizes.contains(megapixels) else { return 0 }
        return quick ? 3 : 5
    }

    /// Sizes with instruction rows (``InstructionCounter``): 0.25 MP, in quick and full runs
    /// alike. A count per pixel hardly depends on the size, and callgrind runs a decode some 50
    /// times slower: the 2 MP PNG rows alone would add a minute to the run.
    static let countedSizes: Set<Double> = [0.25]
    /// Counted decodes per decoder at `countedSizes`: 5, ``RunComparison/minimumSamples``, the
    /// fewest a comparison judges (the counts of one build repeat, so more would add nothing).
    static let countedDecodes = RunComparison.minimumSamples

    public func plannedUnits(quick: Bool) -> Int {
        Self.sizes(quick: quick).reduce(0) { total, megapixels in
            total + LargeInputs.Format.allCases.count
                * (2 * Self.plan(quick: quick, megapixels: megapixels).minSamples
                   + Self.coldProcesses(quick: quick, megapixels: megapixels))
        }
    }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        var results: [BenchResult] = []
        let counter = InstructionCounter.locate()
        for megapixels in Self.sizes(quick: context.quick) {
            let benchmark = DecodeBenchmark(plan: Self.plan(quick: context.quick, megapixels: megapixels),
                                            coldProcesses: Self.coldProcesses(quick: context.quick, megapixels: megapixels),
                                            executable: context.executable,
                                            peers: megapixels > Self.largestPeerSize ? [] : context.peers,
                                            countedDecodes: Self.countedSizes.contains(megapixels) ? Self.countedDecodes : 0,
                                            counter: counter)
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

extension BenchResult {
    /// A decode row of MP/s (the decode tables, charts, goals and peer ratios are made of these),
    /// not one of the scenario's instruction rows.
    public var isDecodeThroughput: Bool { scenario == "decode" && metric == "throughput" }
}
