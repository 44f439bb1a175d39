import ImagoCorpus

/// Scenario 2: a 256-px thumbnail from a large photo, decoded downsampled (the codec scales
/// while decoding) or decoded at full size and then resized: time, and peak memory measured
/// in a fresh process per method; beside them each peer's own thumbnail path, timed in its
/// warm interpreter.
public struct ThumbnailScenario: BenchScenario {
    public let name = "thumbnails"
    public let question = "What does a 256-px thumbnail cost when the codec downsamples while decoding, against a full decode plus resize?"

    public init() {}

    /// Longest side of the thumbnail (256 px).
    static let maxPixelSize = 256
    /// Source sizes: 12 and 40 MP (quick: 12).
    static func sizes(quick: Bool) -> [Double] { quick ? [12] : [12, 40] }
    /// Source formats: every format of the decode scenario (quick: JPEG baseline, WebP lossy).
    static func formats(quick: Bool) -> [LargeInputs.Format] {
        quick ? [.jpegBaseline, .webpLossy] : LargeInputs.Format.allCases
    }
    /// Timing: 1 warm-up round, 5 to 15 rounds, 0.5 s per method (quick: 5 rounds, `bench
    /// compare`'s minimum for a verdict).
    static func plan(quick: Bool) -> SamplingPlan {
        quick ? SamplingPlan(warmUp: 1, minSamples: RunComparison.minimumSamples, maxSamples: RunComparison.minimumSamples,
                             minSeconds: 0)
              : SamplingPlan(warmUp: 1, minSamples: 5, maxSamples: 15, minSeconds: 0.5)
    }
    /// Fresh processes per method for the memory figures: 3 (quick: 1).
    static func memoryProcesses(quick: Bool) -> Int { quick ? 1 : 3 }

    public func plannedUnits(quick: Bool) -> Int {
        Self.sizes(quick: quick).count * Self.formats(quick: quick).count
            * (Self.plan(quick: quick).minSamples + 2 * Self.memoryProcesses(quick: quick))
    }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        var results: [BenchResult] = []
        for megapixels in Self.sizes(quick: context.quick) {
            for format in Self.formats(quick: context.quick) {
                let input = try context.input(format, megapixels: megapixels)
                results += CorePinning.pinned { _ in measure(input, context) }
            }
        }
        return results
    }

    private func measure(_ input: BenchInput, _ context: BenchContext) -> [BenchResult] {
        let methods = MemoryProbe.ThumbnailMethod.allCases
        var variants = methods.map { method in
            InterleavedSampler.Variant(method.rawValue) {
                try measureMilliseconds {
                    _ = try Thumbnailer.make(file: input.path, maxPixelSize: Self.maxPixelSize, method: method)
                }
            }
        }
        let peers = PeerThumbnails(input: input, peers: context.peers)
        variants += peers.variants
        let timings = InterleavedSampler(plan: Self.plan(quick: context.quick)).run(variants) { _ in
            context.progress.advance()
        }
        var results: [BenchResult] = []
        for method in methods {
            let parameters = Parameters.make(["format": input.kind, "size": input.sizeLabel,
                                              "method": method.rawValue, "thumbnail": "\(Self.maxPixelSize)px"])
            results.append(BenchResult(scenario: name, parameters: parameters, metric: "time", unit: "ms",
                                       direction: .lowerIsBetter, outcome: timings[method.rawValue]))
            let probe = MemoryProbe.thumbnail(file: input.path, maxPixelSize: Self.maxPixelSize, method: method)
            let memory = Result {
                try (0..<Self.memoryProcesses(quick: context.quick)).map { _ in
                    defer { context.progress.advance(2) }
                    return try ChildProcess.probe(executable: context.executable, probe)
                }
            }
            results += MemoryRows.rows(scenario: name, parameters: parameters, memory)
        }
        results += peers.rows(scenario: name, timings: timings, thumbnail: "\(Self.maxPixelSize)px")
        let fast = results.first { $0.metric == "time" && $0.parameter("method") == methods[0].rawValue }?.p50
        context.progress.log("\(input.kind) \(input.sizeLabel): downsampled decode "
                             + (fast.map { String(format: "%.1f ms", $0) } ?? "skipped"))
        return results
    }
}
