import Foundation
import Imago
import ImagoTestServer

/// The throughput scenario's control variants: the raw control (`RawControl`), the raw control
/// writing each body to disk (`RawDiskWrite`) and a pipeline with a disk cache, timed beside the
/// default pipeline, and one 12 MP load's time to pixels.
extension ThroughputScenario {
    /// The single large load: 4000×3000 (12 MP), the size of a phone photo.
    static let largeWidth = 4000, largeHeight = 3000
    /// Rounds of the single 12 MP load, pipeline and control interleaved: 5 (quick: 3).
    static func largeRounds(quick: Bool) -> Int { quick ? 3 : 5 }

    /// Images per second through the raw control, `concurrency` loads at a time.
    static func controlRate(_ urls: [URL], concurrency: Int, control: RawControl) async throws -> Double {
        let start = ContinuousClock.now
        _ = try await control.load(urls, concurrency: concurrency)
        return Double(urls.count) / (ContinuousClock.now - start).seconds
    }

    /// Images per second through the raw control writing each body to a new, empty directory
    /// under `scratch` (`RawDiskWrite`), removed (and the file system flushed) after the run:
    /// the disk cache's work done by hand, the floor a disk-cached pipeline is measured against
    /// beside the plain control.
    static func controlWithDiskRate(_ urls: [URL], concurrency: Int, control: RawControl,
                                    scratch: ScratchDirectory) async throws -> Double {
        let directory = scratch.url.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { scratch.remove(directory) }
        let start = ContinuousClock.now
        _ = try await control.load(urls, concurrency: concurrency, writingTo: RawDiskWrite(directory: directory))
        return Double(urls.count) / (ContinuousClock.now - start).seconds
    }

    /// Images per second through a fresh pipeline with a disk cache in a new, empty directory
    /// under `scratch` (cold each run: for distinct images that is what a disk cache costs),
    /// removed (and the file system flushed) after the run. The configuration is
    /// `withDiskCache(at:)`, the preset a user would pick, on the same transport as the default
    /// rows.
    static func diskCachedPipelineRate(_ urls: [URL], concurrency: Int, transport: any ImageTransport,
                                       scratch: ScratchDirectory) async throws -> Double {
        let directory = scratch.url.appendingPathComponent(UUID().uuidString, isDirectory: true)
        defer { scratch.remove(directory) }
        var configuration = try ImagePipeline.Configuration.withDiskCache(at: directory)
        configuration.dependencies.transport = transport
        configuration.network.retryPolicy = .none
        configuration.network.temporaryDirectory = directory
        return try await pipelineRate(urls, concurrency: concurrency, pipeline: ImagePipeline(configuration: configuration))
    }

    /// One 12 MP JPEG's time to pixels (ms), through a fresh default pipeline and through the
    /// raw control, interleaved round by round; the rows and their overhead.
    static func largeLoadRows(server: TestServer, transport: any ImageTransport, control: RawControl,
                              quick: Bool) async throws -> [BenchResult] {
        let image = try DistinctImages.make(count: 1, width: largeWidth, height: largeHeight, seed: 12)[0]
        server.setRoute("/large.jpg", Route(body: image, contentType: "image/jpeg"))
        let url = server.url(for: "/large.jpg")
        var pipelineTimes: [Double] = [], controlTimes: [Double] = []
        for _ in 0..<largeRounds(quick: quick) {
            let pipeline = ImagePipeline(configuration: .init(dependencies: .init(transport: transport),
                                                              network: .init(retryPolicy: .none)))
            var start = ContinuousClock.now
            _ = try await pipeline.response(for: ImageRequest(source: .url(url)))
            pipelineTimes.append((ContinuousClock.now - start).seconds * 1000)
            start = ContinuousClock.now
            _ = try await control.load(url)
            controlTimes.append((ContinuousClock.now - start).seconds * 1000)
        }
        let size = "size=\(largeWidth)x\(largeHeight) load=single"
        return [
            BenchResult(scenario: "throughput", parameters: size + " variant=pipeline", metric: "time-to-pixels",
                        unit: "ms", direction: .lowerIsBetter, samples: pipelineTimes),
            BenchResult(scenario: "throughput", parameters: size + " variant=\(ControlOverhead.controlTransport)",
                        metric: "time-to-pixels", unit: "ms", direction: .lowerIsBetter, samples: controlTimes),
            ControlOverhead.row(size + " cache=\(ControlOverhead.memoryCache)",
                                ControlOverhead.ratios(pipelineTimes: pipelineTimes, controlTimes: controlTimes)),
        ]
    }
}
