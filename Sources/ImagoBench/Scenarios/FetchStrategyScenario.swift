import Foundation
import Imago
import ImagoCorpus
import ImagoTestServer

/// Scenario 3: receiving the body in memory (a data task) against streaming it to a temporary
/// file, over each built-in transport and the loopback server, unthrottled and throttled: wall
/// time from request to pixels and peak resident memory, each sample a fresh child process.
public struct FetchStrategyScenario: BenchScenario {
    public let name = "fetch"
    public let question = "Data task or download-to-file, over which transport: what does each cost in time to pixels and in peak memory?"

    public init() {}

    /// JPEG baseline at 0.25, 2, 12 and 40 MP (quick: 2 and 12).
    static func sizes(quick: Bool) -> [Double] { quick ? [2, 12] : [0.25, 2, 12, 40] }
    /// Bandwidths: unthrottled and 20 MB/s (quick: unthrottled only).
    static func throttles(quick: Bool) -> [Int?] { quick ? [nil] : [nil, 20_000_000] }
    /// Fresh processes per cell: 3 (quick: 1).
    static func processes(quick: Bool) -> Int { quick ? 1 : 3 }

    public func plannedUnits(quick: Bool) -> Int {
        Self.sizes(quick: quick).count * Self.throttles(quick: quick).count * FetchStrategy.allCases.count
            * BuiltInTransport.allCases.count * Self.processes(quick: quick)
    }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let server = try await TestServer.start()
        let scratch = try ScratchDirectory("fetch")
        var results: [BenchResult] = []
        do {
            for megapixels in Self.sizes(quick: context.quick) {
                let input = try context.input(.jpegBaseline, megapixels: megapixels)
                let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input.path)))
                results.append(BenchResult(
                    scenario: name, parameters: Parameters.make(["format": input.kind, "size": input.sizeLabel]),
                    metric: "decoded-size", unit: "MiB", direction: .lowerIsBetter,
                    samples: [Double(input.width * input.height * 4) / MemoryRows.mebibyte]))
                results.append(BenchResult(
                    scenario: name, parameters: Parameters.make(["format": input.kind, "size": input.sizeLabel]),
                    metric: "body-size", unit: "MiB", direction: .lowerIsBetter,
                    samples: [Double(body.count) / MemoryRows.mebibyte]))
                for throttle in Self.throttles(quick: context.quick) {
                    let path = "/\(throttle.map { "throttled-\($0)" } ?? "unthrottled")/\(input.kind)-\(input.sizeLabel).jpg"
                    server.setRoute(path, Route(body: body, contentType: "image/jpeg",
                                                faults: Faults(bytesPerSecond: throttle)))
                    results += measure(input, url: server.url(for: path), throttle: throttle,
                                       scratch: scratch.url, context)
                }
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
        return results
    }

    private func measure(_ input: BenchInput, url: URL, throttle: Int?, scratch: URL,
                         _ context: BenchContext) -> [BenchResult] {
        var probes: [Cell: Result<[MemoryProbeResult], any Error>] = [:]
        var leftovers: [Cell: [Double]] = [:]
        for _ in 0..<Self.processes(quick: context.quick) {
            // Interleaved: every transport × strategy once per round, so drift hits all alike.
            for transport in BuiltInTransport.allCases {
                for strategy in FetchStrategy.allCases {
                    let cell = Cell(transport: transport, strategy: strategy)
                    let probe = MemoryProbe.fetch(url: url.absoluteString, strategy: strategy.rawValue,
                                                  temporaryDirectory: scratch.path, transport: transport.rawValue)
                    let sample = Result { try ChildProcess.probe(executable: context.executable, probe) }
                    probes[cell] = (probes[cell] ?? .success([])).flatMap { done in sample.map { done + [$0] } }
                    leftovers[cell, default: []].append(Double(ScratchDirectory.count(scratch)))
                    context.progress.advance()
                }
            }
        }
        var results: [BenchResult] = []
        for transport in BuiltInTransport.allCases {
            for strategy in FetchStrategy.allCases {
                let cell = Cell(transport: transport, strategy: strategy)
                let parameters = Parameters.make([
                    "format": input.kind, "size": input.sizeLabel, "strategy": strategy.rawValue,
                    "transport": transport.rawValue,
                    "bandwidth": throttle.map { "\($0 / 1_000_000)MB/s" } ?? "unthrottled"])
                let outcome = probes[cell] ?? .success([])
                results.append(BenchResult(scenario: name, parameters: parameters, metric: "time-to-pixels", unit: "ms",
                                           direction: .lowerIsBetter,
                                           outcome: outcome.map { $0.map(\.milliseconds) }))
                results += MemoryRows.rows(scenario: name, parameters: parameters, outcome)
                results.append(BenchResult(scenario: name, parameters: parameters, metric: "temp-files-left", unit: "count",
                                           direction: .lowerIsBetter, samples: leftovers[cell] ?? []))
            }
        }
        context.progress.log("\(input.sizeLabel) \(throttle.map { "at \($0 / 1_000_000) MB/s" } ?? "unthrottled") done")
        return results
    }
}

/// One transport × strategy cell of the fetch scenario.
private struct Cell: Hashable {
    let transport: BuiltInTransport
    let strategy: FetchStrategy
}
