import Foundation
import Imago

/// One encoded file the decode benchmark runs over.
public struct BenchInput: Sendable {
    /// Format and flavour, e.g. "jpeg-baseline", "webp-lossless".
    public let kind: String
    public let path: String
    public let width: Int
    public let height: Int
    /// The nominal size the file was generated at (0.25, 2, 12, 40).
    public let nominalMegapixels: Double
    public var megapixels: Double { Double(width * height) / 1_000_000 }
    /// "12MP", "0.25MP": the size as the report's parameters spell it.
    public var sizeLabel: String { Self.megapixelsText(nominalMegapixels) + "MP" }

    /// A size in megapixels as labels print it: "12", "0.25".
    static func megapixelsText(_ megapixels: Double) -> String {
        megapixels == megapixels.rounded() ? "\(Int(megapixels))" : "\(megapixels)"
    }

    public init(kind: String, path: String, width: Int, height: Int, nominalMegapixels: Double) {
        self.kind = kind
        self.path = path
        self.width = width
        self.height = height
        self.nominalMegapixels = nominalMegapixels
    }
}

/// Decode throughput of one input, in three round-robin groups so that each comparison is
/// between the same allocator states (each warm and fresh-pages sample is the mean of enough
/// decodes in a row to last 20 ms, `batchSize`; a cold-process sample is one decode):
/// - warm: Imago as a user gets it (a new `PixelBuffer` per decode, whose pages come from
///   `PixelMemory`'s reuse pool once warmed up), the C library into one reused buffer, and
///   each peer's warm loop (an interpreter of its own per peer);
/// - fresh pages: Imago with the reuse pool off (`PixelMemory.retainedByteLimit = 0`) and the
///   C library into a newly malloc'd buffer each time;
/// - cold process: Imago's and each peer's first decode in new processes, alternating.
public struct DecodeBenchmark {
    /// Warm-up, sample counts and time floor of the in-process variants.
    public var plan: SamplingPlan
    /// Fresh processes per cold variant (default 5; 0: no cold-process rows).
    public var coldProcesses: Int
    /// This executable, re-run with `bench-child` for cold-process samples.
    public var executable: String
    /// The peers, installed or not (default none); each gets rows only for the formats it decodes.
    public var peers: [PeerStatus]
    /// Counted decodes per decoder for the instruction rows (default 0: no instruction rows).
    public var countedDecodes: Int
    /// What counts them: valgrind's callgrind, or why it cannot (default: not looked up).
    public var counter: Result<InstructionCounter, CounterUnavailable>

    public init(plan: SamplingPlan, coldProcesses: Int = 5, executable: String, peers: [PeerStatus] = [],
                countedDecodes: Int = 0,
                counter: Result<InstructionCounter, CounterUnavailable> = .failure(CounterUnavailable(reason: "not looked up"))) {
        self.plan = plan
        self.coldProcesses = coldProcesses
        self.executable = executable
        self.peers = peers
        self.countedDecodes = countedDecodes
        self.counter = counter
    }

    /// The (decoder, state) variants for an input of `kind`, in report order.
    public func variants(kind: String) -> [(decoder: String, state: String)] {
        let names = peers.map(\.peer).filter { $0.decodes(kind: kind) }.map(\.name)
        let cold = coldProcesses > 0 ? [("imago", "cold-process")] + names.map { ($0, "cold-process") } : []
        return [("imago", "fresh"), ("c-direct", "warm")] + names.map { ($0, "warm-loop") }
            + [("imago", "fresh-pages"), ("c-direct", "fresh")] + cold
    }

    /// Measures `input` on one core (`CorePinning`); `afterRound` is told each finished round
    /// (for progress).
    public func run(_ input: BenchInput, afterRound: () -> Void) throws -> [BenchResult] {
        try CorePinning.pinned { _ in try measure(input, afterRound: afterRound) } + instructionRows(input)
    }

    /// The instructions per pixel of Imago's decode and the bare C call's (``InstructionCounter``),
    /// `countedDecodes` samples each; none when `countedDecodes` is 0, skipped rows without valgrind.
    func instructionRows(_ input: BenchInput) -> [BenchResult] {
        guard countedDecodes > 0 else { return [] }
        return CountedDecoder.allCases.map { decoder in
            let parameters = Parameters.make(["format": input.kind, "size": input.sizeLabel,
                                              "decoder": decoder.rawValue, "state": decoder.state])
            do {
                let counts = try counter.get().count(executable: InstructionCounter.child(besides: executable),
                                                     arguments: [input.path, decoder.rawValue, String(countedDecodes)])
                let pixels = Double(input.width * input.height)
                return BenchResult(scenario: "decode", parameters: parameters, metric: "instructions", unit: "instr/px",
                                   direction: .lowerIsBetter, samples: counts.map { $0 / pixels })
            } catch {
                return BenchResult(scenario: "decode", parameters: parameters, metric: "instructions", unit: "instr/px",
                                   direction: .lowerIsBetter, skipped: "\(error)")
            }
        }
    }

    /// A warm or fresh-pages sample lasts at least this long (20 ms): it is the mean of as many
    /// decodes in a row as that takes (`batchSize`), so a 0.25 MP decode of 1-4 ms is not timed
    /// alone, where a timer tick or one preemption moves it by tens of percent.
    static let sampleFloorMilliseconds = 20.0
    /// At most this many decodes per sample (64).
    static let maximumBatch = 64

    /// Decodes per sample for an input whose decode took `milliseconds` (after a warm-up):
    /// enough to reach `sampleFloorMilliseconds`, between 1 and `maximumBatch`.
    static func batchSize(decodeMilliseconds milliseconds: Double) -> Int {
        guard milliseconds > 0, milliseconds.isFinite else { return maximumBatch }
        return min(maximumBatch, max(1, Int((sampleFloorMilliseconds / milliseconds).rounded(.up))))
    }

    private func measure(_ input: BenchInput, afterRound: () -> Void) throws -> [BenchResult] {
        let data = try Data(contentsOf: URL(fileURLWithPath: input.path))
        let warmBuffer = UnsafeMutableRawPointer.allocate(byteCount: input.width * input.height * 4, alignment: 64)
        defer { warmBuffer.deallocate() }
        _ = try ImageDecoder.decode(data)   // first-touch effects belong to the cold rows
        let batch = Self.batchSize(decodeMilliseconds: try measureMilliseconds { _ = try ImageDecoder.decode(data) })
        /// The mean of `batch` runs of `body`, in milliseconds.
        func sample(_ body: () throws -> Void) throws -> Double {
            try measureMilliseconds { for _ in 0..<batch { try body() } } / Double(batch)
        }
        var warm: [InterleavedSampler.Variant] = [
            .init("imago fresh") { try sample { _ = try ImageDecoder.decode(data) } },
            .init("c-direct warm") { try sample { try referenceDecode(input, data, warmBuffer) } },
        ]
        let freshPages: [InterleavedSampler.Variant] = [
            .init("imago fresh-pages") { try sample { _ = try ImageDecoder.decode(data) } },
            .init("c-direct fresh") {
                // Newly allocated buffers, allocated and freed outside the timing as before batching.
                let buffers = (0..<batch).map { _ in
                    UnsafeMutableRawPointer.allocate(byteCount: input.width * input.height * 4, alignment: 64)
                }
                defer { buffers.forEach { $0.deallocate() } }
                var next = 0
                return try sample {
                    try referenceDecode(input, data, buffers[next])
                    next += 1
                }
            },
        ]
        var cold: [InterleavedSampler.Variant] = [
            .init("imago cold-process") { try ChildProcess.firstDecodeMilliseconds(executable: executable, file: input.path) },
        ]
        var skipped: [String: String] = [:]
        for status in peers where status.peer.decodes(kind: input.kind) {
            let name = status.peer.name
            switch status.installed {
            case .success(let peer):
                do {
                    let session = try peer.warmSession(.decode)   // lives as long as its variant's closure
                    warm.append(.init("\(name) warm-loop") { try session.milliseconds(file: input.path, batch: batch) })
                } catch {
                    skipped["\(name) warm-loop"] = "\(error)"
                }
                cold.append(.init("\(name) cold-process") { try peer.coldSamples(.decode, file: input.path, processes: 1)[0] })
            case .failure(let unavailable):
                skipped["\(name) warm-loop"] = unavailable.reason
                skipped["\(name) cold-process"] = unavailable.reason
            }
        }
        var outcomes = InterleavedSampler(plan: plan).run(warm) { _ in afterRound() }
        let retained = PixelMemory.retainedByteLimit
        PixelMemory.retainedByteLimit = 0
        outcomes.merge(InterleavedSampler(plan: plan).run(freshPages) { _ in afterRound() }) { first, _ in first }
        PixelMemory.retainedByteLimit = retained
        if coldProcesses > 0 {
            let coldPlan = SamplingPlan(warmUp: 0, minSamples: coldProcesses, maxSamples: coldProcesses, minSeconds: 0)
            outcomes.merge(InterleavedSampler(plan: coldPlan).run(cold) { _ in afterRound() }) { first, _ in first }
        }
        return variants(kind: input.kind).map { variant in
            let name = "\(variant.decoder) \(variant.state)"
            let parameters = Parameters.make(["format": input.kind, "size": input.sizeLabel,
                                              "decoder": variant.decoder, "state": variant.state])
            func row(skipped reason: String) -> BenchResult {
                BenchResult(scenario: "decode", parameters: parameters, metric: "throughput", unit: "MP/s",
                            direction: .higherIsBetter, skipped: reason)
            }
            if let reason = skipped[name] { return row(skipped: reason) }
            switch outcomes[name] {
            case .success(let samples)?:
                return BenchResult(scenario: "decode", parameters: parameters, metric: "throughput", unit: "MP/s",
                                   direction: .higherIsBetter, samples: samples.map { input.megapixels / ($0 / 1000) })
            case .failure(let error)?: return row(skipped: "\(error)")
            case nil: return row(skipped: "not run")
            }
        }
    }

    private func referenceDecode(_ input: BenchInput, _ data: Data, _ buffer: UnsafeMutableRawPointer) throws {
        try ReferenceDecode.decode(data, width: input.width, height: input.height, into: buffer, path: input.path)
    }
}
