import Foundation
import Imago
import ImagoCorpus
import ImagoTestServer

/// Scenario 6: many identical loads at once. Coalescing should turn them into one request
/// and one decode, and the crowd should wait about as long as a single load.
public struct CoalescingScenario: BenchScenario {
    public let name = "coalescing"
    public let question = "Do identical concurrent loads share one request and one decode, and what does the crowd wait?"

    public init() {}

    /// Concurrent identical loads per round: 1, 10, 100.
    static let crowds = [1, 10, 100]
    /// Rounds per crowd size, each with a fresh pipeline and URL: 12 (quick: 4).
    static func rounds(quick: Bool) -> Int { quick ? 4 : 12 }

    public func plannedUnits(quick: Bool) -> Int { Self.crowds.count * Self.rounds(quick: quick) }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let input = try context.input(.jpegBaseline, megapixels: 2)
        let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input.path)))
        let server = try await TestServer.start()
        var results: [BenchResult] = []
        var singleP50: Double?
        do {
            for crowd in Self.crowds {
                var latencies: [Double] = [], requests: [Double] = [], decodes: [Double] = []
                for round in 0..<Self.rounds(quick: context.quick) {
                    let path = "/coalesce/\(crowd)/\(round).jpg"
                    server.setRoute(path, Route(body: body, contentType: "image/jpeg"))
                    let pipeline = ImagePipeline(configuration: .init(network: .init(retryPolicy: .none)))
                    latencies += try await Self.loadTogether(crowd, pipeline, server.url(for: path))
                    requests.append(Double(server.counters.requests(for: path)))
                    decodes.append(Double(pipeline.counters.snapshot.decodes))
                    server.removeRoute(path)
                    context.progress.advance()
                }
                let parameters = Parameters.make(["concurrent-loads": "\(crowd)", "size": input.sizeLabel])
                let latency = BenchResult(scenario: name, parameters: parameters, metric: "latency", unit: "ms",
                                          direction: .lowerIsBetter, samples: latencies)
                if crowd == 1 { singleP50 = latency.p50 }
                results += [
                    BenchResult(scenario: name, parameters: parameters, metric: "requests", unit: "count",
                                direction: .lowerIsBetter, samples: requests),
                    BenchResult(scenario: name, parameters: parameters, metric: "decodes", unit: "count",
                                direction: .lowerIsBetter, samples: decodes),
                    latency,
                ]
                if let single = singleP50, let p50 = latency.p50 {
                    results.append(BenchResult(scenario: name, parameters: parameters, metric: "p50-latency-vs-one-load",
                                               unit: "ratio", direction: .lowerIsBetter, samples: [p50 / single]))
                }
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
        return results
    }

    /// Starts `count` loads of `url` at once; returns each one's latency in milliseconds.
    static func loadTogether(_ count: Int, _ pipeline: ImagePipeline, _ url: URL) async throws -> [Double] {
        let request = ImageRequest(source: .url(url))
        let start = ContinuousClock.now
        return try await withThrowingTaskGroup(of: Double.self) { group in
            for _ in 0..<count {
                group.addTask {
                    _ = try await pipeline.response(for: request)
                    return (ContinuousClock.now - start).seconds * 1000
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}
