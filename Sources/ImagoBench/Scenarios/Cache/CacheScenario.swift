import Foundation
import Imago
import ImagoCorpus
import ImagoTestServer

/// Scenario 4: what each cache level saves (memory hit, disk hit, network miss latency for a
/// 0.25 MP JPEG), and how well each eviction policy keeps a skewed working set in a memory
/// cache a tenth of its size.
public struct CacheScenario: BenchScenario {
    public let name = "cache"
    public let question = "What is a memory hit, a disk hit and a network miss worth, and which eviction policy keeps more hits?"

    public init() {}

    /// Memory-hit samples: 2000 (quick: 300).
    static func memorySamples(quick: Bool) -> Int { quick ? 300 : 2000 }
    /// Disk-hit and network-miss rounds, interleaved: 60 (quick: 15).
    static func loadRounds(quick: Bool) -> Int { quick ? 15 : 60 }
    /// Seeds of the Zipf traces (one sample each): 5 (quick: 2).
    static func seeds(quick: Bool) -> [UInt64] { Array(1...(quick ? 2 : 5)) }
    /// Trace shape: 2000 keys, 40,000 accesses, exponent 0.9; the scan variant adds 200 new
    /// keys after every 2000 accesses.
    static let keyCount = 2000, traceLength = 40_000, scanEvery = 2000, scanLength = 200

    public func plannedUnits(quick: Bool) -> Int {
        1 + Self.loadRounds(quick: quick) + Self.seeds(quick: quick).count * 2
    }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let input = try context.input(.jpegBaseline, megapixels: 0.25)
        let body = try Data(contentsOf: URL(fileURLWithPath: input.path))
        let parameters = Parameters.make(["format": input.kind, "size": input.sizeLabel])
        var results = [try await memoryHits(body, parameters: parameters, context)]
        context.progress.advance()
        results += try await diskAndNetwork(body, parameters: parameters, context)
        results += hitRatios(context)
        return results
    }

    /// Latency from `ImageLoadingModel.load()` to `success(.memory)` being published.
    @MainActor
    private func memoryHits(_ body: Data, parameters: String, _ context: BenchContext) async throws -> BenchResult {
        let pipeline = ImagePipeline(configuration: .init(dependencies: .init(transport: UnusedTransport())))
        let request = ImageRequest(source: .data(body, id: "cache-bench"))
        _ = try await pipeline.response(for: request)
        var samples: [Double] = []
        for _ in 0..<Self.memorySamples(quick: context.quick) {
            let model = ImageLoadingModel(pipeline: pipeline, request: request)
            let microseconds = measureMilliseconds { model.load() } * 1000
            guard case .success(let response) = model.phase, response.origin == .memory else {
                throw BenchError("memory hit expected, got \(model.phase.name)")
            }
            samples.append(microseconds)
        }
        return BenchResult(scenario: name, parameters: parameters + " level=memory-hit",
                           metric: "load-to-success", unit: "µs", direction: .lowerIsBetter, samples: samples)
    }

    /// Fresh disk hits, revalidated disk hits (a conditional request answered 304) and network
    /// misses, each including the decode, sampled alternately.
    private func diskAndNetwork(_ body: Data, parameters: String, _ context: BenchContext) async throws -> [BenchResult] {
        let server = try await TestServer.start()
        let scratch = try ScratchDirectory("disk-cache")
        server.setRoute("/photo.jpg", Route(body: [UInt8](body), contentType: "image/jpeg",
                                            faults: Faults(headers: ["Cache-Control": "max-age=86400"])))
        server.setRoute("/photo-no-cache.jpg", Route(body: [UInt8](body), contentType: "image/jpeg",
                                                     faults: Faults(headers: ["Cache-Control": "no-cache"])))
        let request = ImageRequest(source: .url(server.url(for: "/photo.jpg")))
        let revalidated = ImageRequest(source: .url(server.url(for: "/photo-no-cache.jpg")))
        let diskPipeline = ImagePipeline(configuration: .init(
            dependencies: .init(memoryCache: nil, diskCache: try DiskCache(directory: scratch.url)),
            network: .init(retryPolicy: .none)))
        let networkPipeline = ImagePipeline(configuration: .init(dependencies: .init(memoryCache: nil), network: .init(retryPolicy: .none)))
        var disk: [Double] = [], revalidations: [Double] = [], network: [Double] = []
        do {
            _ = try await diskPipeline.response(for: request)   // fills the disk cache
            _ = try await diskPipeline.response(for: revalidated)
            for _ in 0..<Self.loadRounds(quick: context.quick) {
                disk.append(try await Self.milliseconds(diskPipeline, request, expecting: .disk, .fresh))
                revalidations.append(try await Self.milliseconds(diskPipeline, revalidated, expecting: .disk, .revalidated))
                network.append(try await Self.milliseconds(networkPipeline, request, expecting: .network, nil))
                context.progress.advance()
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
        return [
            BenchResult(scenario: name, parameters: parameters + " level=disk-hit", metric: "load-to-pixels",
                        unit: "ms", direction: .lowerIsBetter, samples: disk),
            BenchResult(scenario: name, parameters: parameters + " level=disk-revalidated", metric: "load-to-pixels",
                        unit: "ms", direction: .lowerIsBetter, samples: revalidations),
            BenchResult(scenario: name, parameters: parameters + " level=network-miss", metric: "load-to-pixels",
                        unit: "ms", direction: .lowerIsBetter, samples: network),
        ]
    }

    private static func milliseconds(_ pipeline: ImagePipeline, _ request: ImageRequest,
                                     expecting origin: ImageOrigin, _ diskCache: DiskCacheOutcome?) async throws -> Double {
        let start = ContinuousClock.now
        let response = try await pipeline.response(for: request)
        let elapsed = (ContinuousClock.now - start).seconds * 1000
        guard response.origin == origin, response.diskCache == diskCache else {
            throw BenchError("expected a \(origin) load (disk cache: \(diskCache.map(String.init(describing:)) ?? "none")), "
                             + "got \(response.origin) (\(response.diskCache.map(String.init(describing:)) ?? "none"))")
        }
        return elapsed
    }

    /// Hit ratio per policy and trace shape, one sample per seed.
    private func hitRatios(_ context: BenchContext) -> [BenchResult] {
        var results: [BenchResult] = []
        for scans in [false, true] {
            let traces = Self.seeds(quick: context.quick).map { seed in
                ZipfTrace(keyCount: Self.keyCount, length: Self.traceLength, seed: seed,
                          scanEvery: scans ? Self.scanEvery : nil, scanLength: Self.scanLength)
            }
            for policy in [MemoryCacheEvictionPolicy.lru, .segmentedLRU] {
                let ratios = traces.map { HitRatioSimulation.hitRatio($0, policy: policy) }
                context.progress.advance(traces.count / 2)
                results.append(BenchResult(
                    scenario: name,
                    parameters: Parameters.make(["trace": scans ? "zipf0.9+scans" : "zipf0.9",
                                                 "policy": policy == .lru ? "lru" : "segmented-lru",
                                                 "cost-limit": "10%-of-working-set"]),
                    metric: "hit-ratio", unit: "ratio", direction: .higherIsBetter, samples: ratios))
            }
        }
        return results
    }
}

/// A transport for pipelines that must never fetch (their sources are in memory).
struct UnusedTransport: ImageTransport {
    func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws(FetchError) -> FetchResult {
        throw .transport("the benchmark's in-memory pipeline tried to fetch \(request.url)")
    }
}
