import Foundation
import Imago
import ImagoCorpus
import ImagoTestServer

/// Issue 14: decoding while the body arrives. For each fetch strategy, time to pixels divided
/// by the raw transfer time of the same URL (curl, measured beside it in the same rounds), at
/// 20 MB/s for 12 and 40 MP and at 2 MB/s for 12 MP, PNG, lossless WebP and progressive JPEG;
/// peak RSS growth per strategy (no disk cache); time to the first preview of a progressive JPEG. Each sample is a
/// fresh child process; cells are interleaved round by round so drift hits all alike.
public struct StreamingScenario: BenchScenario {
    public let name = "stream"
    public let question = "Does decoding while the body arrives make time to pixels equal to the transfer time, and at what memory?"

    public init() {}

    static func formats() -> [LargeInputs.Format] { [.pngRGB8, .webpLossless, .jpegProgressive] }
    /// 12 and 40 MP (quick: 12).
    static func sizes(quick: Bool) -> [Double] { quick ? [12] : [12, 40] }
    /// 2 and 20 MB/s at 12 MP, 20 MB/s at 40 MP (quick: 20). 40 MP at 2 MB/s asks the 12 MP
    /// question again (the ratio to the transfer) and took 15 of a full run's 30 minutes: a 70 MB
    /// PNG is 35 s a transfer, 12 transfers a format.
    static func bandwidths(quick: Bool, megapixels: Double) -> [Int] {
        quick || megapixels > 12 ? [fastLink] : [slowLink, fastLink]
    }
    /// The two rates, in bytes per second: 2 MB/s (a slow mobile link) and 20 MB/s.
    static let slowLink = 2_000_000, fastLink = 20_000_000
    /// Fresh processes per cell: 3, 2 at 2 MB/s (quick: 1). A 2 MB/s round is paced by the
    /// transfer (10 s for the 12 MP PNG, four cells a round), and its ratios scatter least:
    /// its third round took 80 s of a full run for a median of about 1.0x.
    static func processes(quick: Bool, bandwidth: Int) -> Int { quick ? 1 : bandwidth == slowLink ? 2 : 3 }

    /// What one round measures for an input: each strategy, the streaming one with previews
    /// when the format has them, and the raw transfer.
    static func cells(_ format: LargeInputs.Format) -> [StreamCell] {
        var cells = FetchStrategy.allCases.map { StreamCell.load($0, previews: false) }
        if format == .jpegProgressive { cells.append(.load(.stream, previews: true)) }
        return cells + [.transfer]
    }

    public func plannedUnits(quick: Bool) -> Int {
        Self.formats().reduce(0) { $0 + Self.cells($1).count }
            * Self.sizes(quick: quick).reduce(0) { total, megapixels in
                total + Self.bandwidths(quick: quick, megapixels: megapixels).reduce(0) {
                    $0 + Self.processes(quick: quick, bandwidth: $1)
                }
            }
    }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let server = try await TestServer.start()
        let scratch = try ScratchDirectory("stream")
        var results: [BenchResult] = []
        do {
            for megapixels in Self.sizes(quick: context.quick) {
                for format in Self.formats() {
                    let input = try context.input(format, megapixels: megapixels)
                    let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input.path)))
                    results.append(BenchResult(scenario: name, parameters: Parameters.make(["format": input.kind, "size": input.sizeLabel]), metric: "decoded-size",
                                               unit: "MiB", direction: .lowerIsBetter,
                                               samples: [Double(input.width * input.height * 4) / MemoryRows.mebibyte]))
                    results.append(BenchResult(scenario: name, parameters: Parameters.make(["format": input.kind, "size": input.sizeLabel]), metric: "body-size",
                                               unit: "MiB", direction: .lowerIsBetter,
                                               samples: [Double(body.count) / MemoryRows.mebibyte]))
                    for bandwidth in Self.bandwidths(quick: context.quick, megapixels: megapixels) {
                        let path = "/stream-\(bandwidth)/\(input.kind)-\(input.sizeLabel).\(format.fileExtension)"
                        server.setRoute(path, Route(body: body, contentType: "application/octet-stream",
                                                    faults: Faults(bytesPerSecond: bandwidth)))
                        results += measure(input, format, url: server.url(for: path), bandwidth: bandwidth,
                                           scratch: scratch.url, context)
                    }
                }
            }
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
        return results
    }

    private func measure(_ input: BenchInput, _ format: LargeInputs.Format, url: URL, bandwidth: Int, scratch: URL,
                         _ context: BenchContext) -> [BenchResult] {
        var loads: [StreamCell: Result<[MemoryProbeResult], any Error>] = [:]
        var transfers: Result<[Double], any Error> = .success([])
        for _ in 0..<Self.processes(quick: context.quick, bandwidth: bandwidth) {
            for cell in Self.cells(format) {
                switch cell {
                case .transfer:
                    let sample = Result { try RawTransfer.milliseconds(url) }
                    transfers = transfers.flatMap { done in sample.map { done + [$0] } }
                case .load(let strategy, let previews):
                    let probe = MemoryProbe.fetch(url: url.absoluteString, strategy: strategy.rawValue,
                                                  temporaryDirectory: scratch.path, previews: previews)
                    let sample = Result { try ChildProcess.probe(executable: context.executable, probe) }
                    loads[cell] = (loads[cell] ?? .success([])).flatMap { done in sample.map { done + [$0] } }
                }
                context.progress.advance()
            }
        }
        let bandwidthLabel = "\(bandwidth / 1_000_000)MB/s"
        var results = [BenchResult(
            scenario: name, parameters: Parameters.make(["format": input.kind, "size": input.sizeLabel,
                                                          "bandwidth": bandwidthLabel, "strategy": "raw-transfer"]),
            metric: "transfer-time", unit: "ms", direction: .lowerIsBetter, outcome: transfers)]
        let transferMedian = (try? transfers.get()).flatMap { $0.isEmpty ? nil : $0.sorted()[$0.count / 2] }
        for cell in Self.cells(format) {
            guard case .load(let strategy, let previews) = cell else { continue }
            let parameters = Parameters.make(["format": input.kind, "size": input.sizeLabel, "bandwidth": bandwidthLabel,
                                              "strategy": strategy.rawValue + (previews ? "+previews" : "")])
            let outcome = loads[cell] ?? .success([])
            results.append(BenchResult(scenario: name, parameters: parameters, metric: "time-to-pixels", unit: "ms",
                                       direction: .lowerIsBetter, outcome: outcome.map { $0.map(\.milliseconds) }))
            // Each load against the median raw transfer of its cell's rounds.
            results.append(BenchResult(scenario: name, parameters: parameters, metric: "time-to-pixels/transfer", unit: "×",
                                       direction: .lowerIsBetter, outcome: outcome.flatMap { samples in
                guard let transferMedian, transferMedian > 0 else { return .failure(BenchError("no raw transfer time")) }
                return .success(samples.map { $0.milliseconds / transferMedian })
            }))
            results += MemoryRows.rows(scenario: name, parameters: parameters, outcome)
            if previews {
                results.append(BenchResult(scenario: name, parameters: parameters, metric: "first-preview", unit: "ms",
                                           direction: .lowerIsBetter,
                                           outcome: outcome.map { $0.compactMap(\.firstPreviewMilliseconds) }))
            }
        }
        context.progress.log("\(input.kind) \(input.sizeLabel) at \(bandwidthLabel) done")
        return results
    }
}

/// One measured column of a streaming round.
enum StreamCell: Hashable {
    case load(FetchStrategy, previews: Bool)
    /// The same URL through curl, body discarded: the transfer time the loads are judged by.
    case transfer
}

/// A curl-like raw transfer: curl itself, the body thrown away, its own total time.
enum RawTransfer {
    static func milliseconds(_ url: URL) throws -> Double {
        let curl = ["/usr/bin/curl", "/usr/local/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let curl else { throw BenchError("curl is not installed (the raw transfer the loads are compared with)") }
        let output = try ChildProcess.run(curl, ["--silent", "--show-error", "--fail", "--output", "/dev/null",
                                                 "--write-out", "%{time_total}", url.absoluteString])
        guard let seconds = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("curl printed \(output.debugDescription), not a time")
        }
        return seconds * 1000
    }
}
