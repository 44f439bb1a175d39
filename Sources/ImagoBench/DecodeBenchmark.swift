import CImagoCodecs
import Foundation
import Imago

/// One encoded file the decode benchmark runs over.
public struct BenchInput: Sendable {
    /// Format and flavour, e.g. "jpeg-baseline", "webp-lossless".
    public let kind: String
    public let path: String
    public let width: Int
    public let height: Int
    public var megapixels: Double { Double(width * height) / 1_000_000 }

    public init(kind: String, path: String, width: Int, height: Int) {
        self.kind = kind
        self.path = path
        self.width = width
        self.height = height
    }
}

/// A measured (or skipped) way of decoding one input.
public struct DecodeMeasurement: Sendable {
    public let input: BenchInput
    /// "imago", "c-direct", "pillow".
    public let decoder: String
    /// "fresh" (new output buffer each decode), "warm" (one buffer reused), "cold-process"
    /// (first decode in a new process), "warm-loop" (Pillow's repeated decodes).
    public let state: String
    public let statistics: SampleStatistics?
    public let skipped: String?

    /// Megapixels per second at the median.
    public var megapixelsPerSecond: Double? {
        statistics.map { input.megapixels / ($0.p50 / 1000) }
    }
}

/// Decode throughput: Imago's decoder as a user gets it (a fresh buffer per image), the same
/// C library called directly (fresh and warm buffer) to show the wrapper's cost, an Imago
/// first decode in a fresh process, and Pillow cold and warm as the peer.
public struct DecodeBenchmark: Sendable {
    public var plan: SamplingPlan
    /// Fresh processes per cold measurement (default 5).
    public var coldProcesses: Int
    /// This executable, re-run with `bench-child` for cold-process samples.
    public var executable: String
    public var pillow: Result<PillowPeer, PeerUnavailable>

    public init(plan: SamplingPlan, coldProcesses: Int = 5, executable: String,
                pillow: Result<PillowPeer, PeerUnavailable>) {
        self.plan = plan
        self.coldProcesses = coldProcesses
        self.executable = executable
        self.pillow = pillow
    }

    public func run(_ input: BenchInput, report: (DecodeMeasurement) -> Void) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: input.path))
        report(measure(input, "imago", "fresh") {
            try plan.run { try measureMilliseconds { _ = try ImageDecoder.decode(data) } }
        })
        report(measure(input, "c-direct", "fresh") {
            try plan.run {
                let buffer = UnsafeMutableRawPointer.allocate(byteCount: input.width * input.height * 4, alignment: 64)
                defer { buffer.deallocate() }
                return try measureMilliseconds { try referenceDecode(input, data, buffer) }
            }
        })
        report(measure(input, "c-direct", "warm") {
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: input.width * input.height * 4, alignment: 64)
            defer { buffer.deallocate() }
            return try plan.run { try measureMilliseconds { try referenceDecode(input, data, buffer) } }
        })
        report(measure(input, "imago", "cold-process") {
            try (0..<coldProcesses).map { _ in try ChildProcess.firstDecodeMilliseconds(executable: executable, file: input.path) }
        })
        switch pillow {
        case .failure(let unavailable):
            report(DecodeMeasurement(input: input, decoder: "pillow", state: "cold-process", statistics: nil, skipped: unavailable.reason))
            report(DecodeMeasurement(input: input, decoder: "pillow", state: "warm-loop", statistics: nil, skipped: unavailable.reason))
        case .success(let peer):
            report(measure(input, "pillow", "cold-process") { try peer.coldSamples(file: input.path, processes: coldProcesses) })
            report(measure(input, "pillow", "warm-loop") {
                try peer.warmSamples(file: input.path, warmUp: plan.warmUp, iterations: max(plan.minSamples, 5))
            })
        }
    }

    private func measure(_ input: BenchInput, _ decoder: String, _ state: String,
                         _ body: () throws -> [Double]) -> DecodeMeasurement {
        do {
            return DecodeMeasurement(input: input, decoder: decoder, state: state,
                                     statistics: SampleStatistics(try body()), skipped: nil)
        } catch {
            return DecodeMeasurement(input: input, decoder: decoder, state: state,
                                     statistics: nil, skipped: "\(error)")
        }
    }

    private func referenceDecode(_ input: BenchInput, _ data: Data, _ buffer: UnsafeMutableRawPointer) throws {
        let out = buffer.assumingMemoryBound(to: UInt8.self)
        let w = UInt32(input.width), h = UInt32(input.height)
        let status = data.withUnsafeBytes { raw -> imago_status in
            let bytes = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            switch SniffedFormat(prefix: raw) {
            case .supported(.png): return imago_reference_png(bytes, raw.count, out, w, h)
            case .supported(.jpeg): return imago_reference_jpeg(bytes, raw.count, out, w, h)
            case .supported(.webp): return imago_reference_webp(bytes, raw.count, out, w, h)
            default: return IMAGO_ERR_UNSUPPORTED
            }
        }
        guard status == IMAGO_OK else { throw BenchError("reference decode of \(input.path) failed (\(status.rawValue))") }
    }
}

public struct BenchError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
