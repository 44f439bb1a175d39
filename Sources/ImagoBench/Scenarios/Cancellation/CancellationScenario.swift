import Foundation
import Imago
import ImagoCorpus
import ImagoTestServer

/// Scenario 5: how quickly a cancelled load lets go, at each point of its life: before the
/// response head, at 10/50/90% of the body (held there by the server, so the point is exact),
/// and in the middle of a large decode.
public struct CancellationScenario: BenchScenario {
    public let name = "cancellation"
    public let question = "How fast does cancel() release the caller and the connection, and what is left behind?"

    public init() {}

    /// Samples per cancel point and strategy: 100 (quick: 10). A p99 needs about a hundred
    /// samples to be more than the single worst one; each sample takes milliseconds.
    static func samples(quick: Bool) -> Int { quick ? 10 : 100 }
    /// Body fractions at which network loads are cancelled (nil: before the head).
    static let points: [Double?] = [nil, 0.1, 0.5, 0.9]
    /// The decode cancelled mid-way: 40 MP (quick: 12 MP) JPEG baseline.
    static func decodeMegapixels(quick: Bool) -> Double { quick ? 12 : 40 }

    public func plannedUnits(quick: Bool) -> Int {
        Self.samples(quick: quick) * (Self.points.count * FetchStrategy.allCases.count * BuiltInTransport.allCases.count + 1)
    }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let input = try context.input(.jpegBaseline, megapixels: 12)
        let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input.path)))
        let server = try await TestServer.start()
        var results: [BenchResult] = []
        do {
            for (transport, strategy) in BuiltInTransport.allCases.flatMap({ t in FetchStrategy.allCases.map { (t, $0) } }) {
                let scratch = try ScratchDirectory("cancel")
                let runner = NetworkCancellation(server: server, body: body, strategy: strategy, scratch: scratch.url,
                                                 transport: transport.make())
                for point in Self.points {
                    var samples: [CancellationSample] = []
                    var missed = 0
                    for index in 0..<Self.samples(quick: context.quick) {
                        let label = point.map { "\(Int($0 * 100))pct" } ?? "head"
                        do {
                            samples.append(try await runner.run(path: "/cancel/\(transport.rawValue)/\(strategy.rawValue)/\(label)/\(index).jpg",
                                                                fraction: point))
                        } catch let miss as StallPointMissed {
                            missed += 1
                            context.progress.log("\(miss)")
                        }
                        context.progress.advance()
                    }
                    results += rows(samples, point: point, strategy: strategy, transport: transport, input: input)
                    results.append(BenchResult(
                        scenario: name, parameters: results.last?.parameters ?? "", metric: "stall-point-not-reported",
                        unit: "count", direction: .lowerIsBetter, samples: [Double(missed)]))
                }
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
        results += try await decodeRows(context)
        return results
    }

    private func rows(_ samples: [CancellationSample], point: Double?, strategy: FetchStrategy,
                      transport: BuiltInTransport, input: BenchInput) -> [BenchResult] {
        let parameters = Parameters.make(["point": point.map { "\(Int($0 * 100))%-of-body" } ?? "before-head",
                                          "strategy": strategy.rawValue, "transport": transport.rawValue,
                                          "size": input.sizeLabel])
        let closes = samples.compactMap(\.cancelToServerClose)
        func row(_ metric: String, _ unit: String, _ values: [Double], _ direction: MetricDirection = .lowerIsBetter) -> BenchResult {
            BenchResult(scenario: name, parameters: parameters, metric: metric, unit: unit, direction: direction, samples: values)
        }
        return [
            row("cancel-to-task-end", "ms", samples.map(\.cancelToTaskEnd)),
            closes.isEmpty
                ? BenchResult(scenario: name, parameters: parameters, metric: "cancel-to-server-close", unit: "ms",
                              direction: .lowerIsBetter, skipped: "the server never saw the client close")
                : row("cancel-to-server-close", "ms", closes),
            row("server-saw-close", "fraction", [Double(closes.count) / Double(max(samples.count, 1))], .higherIsBetter),
            row("bytes-after-cancel", "bytes", samples.map { Double($0.bytesAfterCancel) }),
            row("temp-files-left", "count", samples.map { Double($0.temporaryFilesLeft) }),
        ]
    }

    private func decodeRows(_ context: BenchContext) async throws -> [BenchResult] {
        let megapixels = Self.decodeMegapixels(quick: context.quick)
        let input = try context.input(.jpegBaseline, megapixels: megapixels)
        let run = DecodeCancellationRun(body: try Data(contentsOf: URL(fileURLWithPath: input.path)))
        let half = try await run.fullDecodeDuration() / 2
        var taskEnds: [Double] = [], decodeEnds: [Double] = []
        var finishedFirst = 0
        for index in 0..<Self.samples(quick: context.quick) {
            if let sample = try await run.run(id: "decode-cancel-\(index)", delay: half) {
                taskEnds.append(sample.taskEnd)
                decodeEnds.append(sample.decodeEnd)
            } else {
                finishedFirst += 1
            }
            context.progress.advance()
        }
        let parameters = Parameters.make(["point": "mid-decode", "format": input.kind, "size": input.sizeLabel])
        return [
            BenchResult(scenario: name, parameters: parameters, metric: "cancel-to-task-end", unit: "ms",
                        direction: .lowerIsBetter, samples: taskEnds),
            BenchResult(scenario: name, parameters: parameters, metric: "cancel-to-decode-end", unit: "ms",
                        direction: .lowerIsBetter, samples: decodeEnds),
            BenchResult(scenario: name, parameters: parameters, metric: "finished-before-cancel", unit: "count",
                        direction: .lowerIsBetter, samples: [Double(finishedFirst)]),
        ]
    }
}
