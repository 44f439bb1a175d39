import Foundation
import Imago
import ImagoTestServer

/// Scenario 7: many distinct images through the whole pipeline (loopback fetch, decode,
/// store) over each built-in transport with 1, 4, 8 and 16 loads in flight, against what the
/// cores decode alone; beside them, interleaved run by run (every other round in reverse), the
/// raw control (`RawControl`: the same fetch and decode by hand, no cache, no coalescing, no
/// model), the raw control writing each body to disk (`RawDiskWrite`) and a pipeline with a
/// cold disk cache, with the pipeline's overhead over the control (time / control time) at
/// each concurrency, the disk-cached pipeline's over the writing control too, and one 12 MP
/// load's time to pixels, pipeline vs control.
public struct ThroughputScenario: BenchScenario {
    public let name = "throughput"
    public let question = "How many images per second does the pipeline deliver as concurrency grows, and how close is that to the cores' decode rate?"

    public init() {}

    /// Distinct images per run: 500 (quick: 100), 640×480 JPEGs.
    static func imageCount(quick: Bool) -> Int { quick ? 100 : 500 }
    /// Loads in flight.
    static let concurrencies = [1, 4, 8, 16]
    /// Runs per concurrency (each a fresh pipeline): 3 (quick: 1).
    static func runs(quick: Bool) -> Int { quick ? 1 : 3 }

    public func plannedUnits(quick: Bool) -> Int {
        // Per run: each transport, the control, the writing control and the disk-cached pipeline;
        // then the 12 MP load.
        1 + Self.concurrencies.count * (BuiltInTransport.allCases.count + 3) * Self.runs(quick: quick) + 1
    }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let images = try DistinctImages.make(count: Self.imageCount(quick: context.quick))
        let singleCore = try Self.singleCoreRate(images)
        context.progress.advance()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let server = try await TestServer.start()
        for (index, image) in images.enumerated() {
            server.setRoute("/t/\(index).jpg", Route(body: image, contentType: "image/jpeg"))
        }
        let size = Parameters.make(["images": "\(images.count)", "size": "640x480"])
        var results = [BenchResult(scenario: name, parameters: size + " path=single-core-decode-only cores=\(cores)",
                                   metric: "throughput", unit: "images/s", direction: .higherIsBetter, samples: [singleCore])]
        do {
            // One transport of each kind for the whole scenario, like an app's one client: both
            // keep their connections warm between runs.
            let clients = Dictionary(uniqueKeysWithValues: BuiltInTransport.allCases.map { ($0, $0.make()) })
            let control = RawControl()
            let controlled = BuiltInTransport.platformDefault   // the pipeline rows the control stands beside
            let scratch = try ScratchDirectory("throughput-disk")
            let urls = images.indices.map { server.url(for: "/t/\($0).jpg") }
            try await Self.warmUp(urls, clients: clients, control: control)
            for concurrency in Self.concurrencies {
                var rates: [BuiltInTransport: [Double]] = [:]
                var controlRates: [Double] = [], controlDiskRates: [Double] = [], diskRates: [Double] = []
                for round in 0..<Self.runs(quick: context.quick) {
                    // Interleaved runs, every other round in reverse (`counterbalanced`).
                    var variants: [() async throws -> Void] = BuiltInTransport.allCases.map { transport in {
                        rates[transport, default: []].append(
                            try await Self.pipelineRate(urls, concurrency: concurrency, transport: clients[transport]!))
                    } }
                    variants.append { controlRates.append(try await Self.controlRate(urls, concurrency: concurrency, control: control)) }
                    variants.append {
                        controlDiskRates.append(try await Self.controlWithDiskRate(
                            urls, concurrency: concurrency, control: control, scratch: scratch))
                    }
                    variants.append {
                        diskRates.append(try await Self.diskCachedPipelineRate(
                            urls, concurrency: concurrency, transport: clients[controlled]!, scratch: scratch))
                    }
                    for variant in Self.counterbalanced(variants, round: round) {
                        try await variant()
                        context.progress.advance()
                    }
                }
                let level = size + " concurrency=\(concurrency)"
                results.append(BenchResult(scenario: name, parameters: level + " transport=\(ControlOverhead.controlTransport)",
                                           metric: "throughput", unit: "images/s", direction: .higherIsBetter, samples: controlRates))
                results.append(BenchResult(scenario: name, parameters: level + " transport=\(ControlOverhead.diskControlTransport)",
                                           metric: "throughput", unit: "images/s", direction: .higherIsBetter,
                                           samples: controlDiskRates))
                results.append(BenchResult(scenario: name, parameters: level + " transport=\(controlled.rawValue)+disk-cache",
                                           metric: "throughput", unit: "images/s", direction: .higherIsBetter, samples: diskRates))
                results.append(ControlOverhead.row(level + " transport=\(controlled.rawValue) cache=\(ControlOverhead.diskCache)",
                                                   ControlOverhead.ratios(pipelineRates: diskRates, controlRates: controlDiskRates),
                                                   metric: ControlOverhead.diskControlMetric))
                for (cache, pipelineRates) in [(ControlOverhead.memoryCache, rates[controlled] ?? []),
                                               (ControlOverhead.diskCache, diskRates)] {
                    results.append(ControlOverhead.row(level + " transport=\(controlled.rawValue) cache=\(cache)",
                                                       ControlOverhead.ratios(pipelineRates: pipelineRates, controlRates: controlRates)))
                }
                for transport in BuiltInTransport.allCases {
                    let parameters = size + " concurrency=\(concurrency) transport=\(transport.rawValue)"
                    let samples = rates[transport] ?? []
                    results.append(BenchResult(scenario: name, parameters: parameters, metric: "throughput",
                                               unit: "images/s", direction: .higherIsBetter, samples: samples))
                    // Against the decode-only rate of the cores this many loads can keep busy.
                    let ideal = singleCore * Double(min(concurrency, cores))
                    results.append(BenchResult(scenario: name, parameters: parameters, metric: "efficiency-vs-decode-rate",
                                               unit: "ratio", direction: .higherIsBetter, samples: samples.map { $0 / ideal }))
                }
            }
            results += try await Self.largeLoadRows(server: server, transport: clients[controlled]!, control: control,
                                                    quick: context.quick)
            context.progress.advance()
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
        return results
    }

    /// One untimed pass of every variant over every image before the first round, each through
    /// a fresh pipeline so nothing cached carries over: it warms what lasts between runs (the
    /// transports' and the control's connections, lazily made thread pools, and the memory a
    /// full memory cache takes from the kernel, which later runs get back from the allocator).
    /// Without it the first timed run, the default transport's at concurrency 1, ran at about
    /// 0.7× its later rounds' rate (426–456 against 586–690 images/s) even after a 16-image
    /// warm-up, which the memory overhead's median then carried.
    static func warmUp(_ urls: [URL], clients: [BuiltInTransport: any ImageTransport], control: RawControl) async throws {
        for transport in BuiltInTransport.allCases {
            _ = try await pipelineRate(urls, concurrency: 4, transport: clients[transport]!)
        }
        _ = try await controlRate(urls, concurrency: 4, control: control)
    }

    /// `items` as given in even rounds and reversed in odd ones (ABBA counterbalancing): every
    /// variant runs before and after every other in turn, so what one leaves behind (the
    /// writing control's fsync'd files, a transport's warm connections) does not always fall on
    /// the one it precedes. (Rotating would not do: it keeps each variant's neighbours.)
    static func counterbalanced<T>(_ items: [T], round: Int) -> [T] {
        round % 2 == 0 ? items : items.reversed()
    }

    /// Images per second one core decodes from memory, with no pipeline around it.
    static func singleCoreRate(_ images: [[UInt8]]) throws -> Double {
        let seconds = try measureMilliseconds {
            for image in images { _ = try ImageDecoder.decode(image) }
        } / 1000
        return Double(images.count) / seconds
    }

    /// Images per second through a fresh pipeline, `concurrency` loads in flight at a time.
    static func pipelineRate(_ urls: [URL], concurrency: Int, transport: any ImageTransport) async throws -> Double {
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(transport: transport), network: .init(retryPolicy: .none)))
        return try await pipelineRate(urls, concurrency: concurrency, pipeline: pipeline)
    }

    /// Images per second through `pipeline`, `concurrency` loads in flight at a time.
    static func pipelineRate(_ urls: [URL], concurrency: Int, pipeline: ImagePipeline) async throws -> Double {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func startNext() {
                let request = ImageRequest(source: .url(urls[next]))
                group.addTask { _ = try await pipeline.response(for: request) }
                next += 1
            }
            while next < min(concurrency, urls.count) { startNext() }
            while try await group.next() != nil {
                if next < urls.count { startNext() }
            }
        }
        return Double(urls.count) / (ContinuousClock.now - start).seconds
    }
}
