import Foundation
import Imago
import ImagoCorpus
import ImagoTestServer

/// The memory scenarios `make bench-check` gates on: each runs in its own fresh process,
/// several times round-robin, and its peak RSS growth and the memory it leaves held are taken
/// at the median, then compared with `Reports/baseline.json`.
public struct MemoryGate {
    /// One gated figure of one run.
    public struct Measurement: Sendable, Equatable {
        public let scenario: String
        /// "peak-rss-growth", "held-after" or "malloc-held".
        public let metric: String
        public let bytes: Int

        public init(scenario: String, metric: String, bytes: Int) {
            self.scenario = scenario
            self.metric = metric
            self.bytes = bytes
        }
    }

    /// This executable, re-run as `bench-probe`.
    public let executable: String
    /// Where generated inputs are cached (default `.bench-inputs`).
    public let inputsDirectory: String
    /// Fresh processes per scenario; the median is gated (default 3).
    public let runs: Int
    public let log: @Sendable (String) -> Void

    public init(executable: String, inputsDirectory: String = ".bench-inputs", runs: Int = 3,
                log: @escaping @Sendable (String) -> Void) {
        self.executable = executable
        self.inputsDirectory = inputsDirectory
        self.runs = runs
        self.log = log
    }

    /// The gated figures per probe result: peak RSS growth, RSS still held afterwards, and
    /// malloc bytes still in use afterwards (glibc's own count, which sees small leaks that
    /// RSS pages hide).
    static let metrics: [(String, KeyPath<MemoryProbeResult, Int> & Sendable)] = [
        ("peak-rss-growth", \.peakGrowthBytes), ("held-after", \.heldAfterBytes), ("malloc-held", \.mallocHeldBytes),
    ]

    /// The tolerance a new baseline entry gets for `metric`: nil (the file's ±15% / 4 MiB) for
    /// RSS figures; ±50% with a 1 MiB floor for malloc-held, whose values are a few hundred
    /// KiB, so that a leak of a megabyte or more is caught.
    public static func defaultTolerance(for metric: String) -> Baseline.Tolerance? {
        metric == "malloc-held" ? Baseline.Tolerance(relative: 0.5, absoluteBytes: 1 << 20) : nil
    }

    public func measure() async throws -> [Measurement] {
        let server = try await TestServer.start()
        do {
            let measurements = try await measure(server: server)
            try await server.shutdown()
            return measurements
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    private func measure(server: TestServer) async throws -> [Measurement] {
        let scratch = try ScratchDirectory("gate")
        let probes = try scenarios(server: server, scratch: scratch.url)
        var results: [String: [MemoryProbeResult]] = [:]
        for run in 1...max(1, runs) {
            for (name, probe) in probes {   // round-robin, so drift lands on every scenario alike
                results[name, default: []].append(try ChildProcess.probe(executable: executable, probe))
            }
            log("bench-check: run \(run)/\(runs) done")
        }
        if ScratchDirectory.count(scratch.url) != 0 {
            throw BenchError("download temporaries were left in \(scratch.url.path)")
        }
        return probes.flatMap { name, _ in
            Self.metrics.map { metric, value in
                Measurement(scenario: name, metric: metric, bytes: Self.median(results[name, default: []].map { $0[keyPath: value] }))
            }
        }
    }

    /// The gate's scenarios, in run order.
    func scenarios(server: TestServer, scratch: URL) throws -> [(String, MemoryProbe)] {
        let input = { (format: LargeInputs.Format, mp: Double) in
            try BenchInputs.prepare(format, megapixels: mp, directory: inputsDirectory, log: log).path
        }
        let jpeg12 = try input(.jpegBaseline, 12)
        let jpeg40 = try input(.jpegBaseline, 40)
        server.setRoute("/gate-40mp.jpg", Route(body: try [UInt8](Data(contentsOf: URL(fileURLWithPath: jpeg40))),
                                                contentType: "image/jpeg"))
        let url = server.url(for: "/gate-40mp.jpg").absoluteString
        return [
            ("decode-12mp-jpeg-baseline", .decode(file: jpeg12)),
            ("decode-12mp-png", .decode(file: try input(.pngRGB8, 12))),
            ("decode-12mp-webp-lossy", .decode(file: try input(.webpLossy, 12))),
            ("thumbnail-12mp-jpeg-downsampled", .thumbnail(file: jpeg12, maxPixelSize: 256, method: .downsampledDecode)),
            ("thumbnail-12mp-jpeg-full+resize", .thumbnail(file: jpeg12, maxPixelSize: 256, method: .fullDecodeThenResize)),
            ("fetch-40mp-jpeg-data", .fetch(url: url, strategy: FetchStrategy.data.rawValue, temporaryDirectory: scratch.path)),
            ("fetch-40mp-jpeg-file", .fetch(url: url, strategy: FetchStrategy.file.rawValue, temporaryDirectory: scratch.path)),
            ("pipeline-40-loads-2mp-cache-32mib", .pipelineBatch(file: try input(.jpegBaseline, 2), count: 40, cacheCostLimit: 32 << 20)),
            // MEM-5: the cache still holds ten 12 MP images (about 460 MiB) when the pipeline is
            // dropped; all of it must be given back.
            ("pipeline-12-loads-12mp-cache-512mib", .pipelineBatch(file: jpeg12, count: 12, cacheCostLimit: 512 << 20)),
        ]
    }

    /// The middle value (the lower middle for an even count).
    static func median(_ values: [Int]) -> Int {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[(sorted.count - 1) / 2]
    }
}
