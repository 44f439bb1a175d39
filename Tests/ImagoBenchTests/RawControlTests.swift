import Foundation
import Imago
@testable import ImagoBench
import NIOCore
import ImagoTestServer
import Testing

/// The throughput scenario's raw control: what it loads, the overhead arithmetic, the goals.
@Suite struct RawControlTests {
    @Test func loadsEveryImageFromLoopbackAtFullSizeInURLOrder() async throws {
        // Two sizes, interleaved, so a size returned for the wrong URL shows.
        let wide = try DistinctImages.make(count: 3, width: 64, height: 48)
        let narrow = try DistinctImages.make(count: 3, width: 24, height: 40, seed: 3)
        let images = zip(wide, narrow).flatMap { [$0, $1] }
        let server = try await TestServer.start()
        for (index, image) in images.enumerated() {
            server.setRoute("/\(index).jpg", Route(body: image, contentType: "image/jpeg"))
        }
        let urls = images.indices.map { server.url(for: "/\($0).jpg") }
        let result = await outcome { try await RawControl().load(urls, concurrency: 4) }
        try await server.shutdown()
        let sizes = try result.get()
        #expect(sizes.map(\.width) == [64, 24, 64, 24, 64, 24])
        #expect(sizes.map(\.height) == [48, 40, 48, 40, 48, 40])
    }

    @Test func everyOtherRoundRunsTheVariantsInReverse() {
        let variants = ["ahc", "urlsession", "control", "control+disk", "disk-cache"]
        #expect(ThroughputScenario.counterbalanced(variants, round: 0) == variants)
        #expect(ThroughputScenario.counterbalanced(variants, round: 1) == Array(variants.reversed()))
        #expect(ThroughputScenario.counterbalanced(variants, round: 2) == variants)
        // Over two rounds each pair runs in both orders: the writing control precedes the
        // disk-cached pipeline once and follows it once, and the control runs before the
        // pipelines once.
        let orders = (0..<2).map { ThroughputScenario.counterbalanced(variants, round: $0) }
        let writingFirst = orders.map { $0.firstIndex(of: "control+disk")! < $0.firstIndex(of: "disk-cache")! }
        #expect(Set(writingFirst) == [false, true])
        let controlFirst = orders.map { $0.firstIndex(of: "control")! < $0.firstIndex(of: "ahc")! }
        #expect(Set(controlFirst) == [false, true])
    }

    @Test func theWritingControlLeavesEachBodyWholeInItsDirectory() async throws {
        let images = try DistinctImages.make(count: 3, width: 32, height: 24)
        let server = try await TestServer.start()
        for (index, image) in images.enumerated() {
            server.setRoute("/w/\(index).jpg", Route(body: image, contentType: "image/jpeg"))
        }
        let urls = images.indices.map { server.url(for: "/w/\($0).jpg") }
        let scratch = try ScratchDirectory("raw-disk-write")
        let disk = RawDiskWrite(directory: scratch.url)
        let result = await outcome { try await RawControl().load(urls, concurrency: 2, writingTo: disk) }
        try await server.shutdown()
        #expect(try result.get().map(\.width) == [32, 32, 32])
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
        #expect(names.count == 3 && !names.contains { $0.contains(".tmp-") })   // renamed, none left behind
        let written = try names.map { try [UInt8](Data(contentsOf: scratch.url.appendingPathComponent($0))) }
        #expect(Set(written) == Set(images))
    }

    @Test func aDiskWriteThatFailsIsABenchErrorNamingTheCall() async throws {
        let missing = RawDiskWrite(directory: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"))
        let result = await outcome { try await missing.write(ByteBuffer(bytes: [1, 2, 3]), for: URL(string: "http://x/1.jpg")!) }
        #expect(throws: BenchError.self) { try result.get() }
        if case .failure(let error) = result { #expect("\(error)".contains("open")) }
    }

    @Test func aStatusOtherThan200IsATypedFailure() async throws {
        let server = try await TestServer.start()
        let url = server.url(for: "/missing.jpg")
        let result = await outcome { try await RawControl().load(url) }
        try await server.shutdown()
        #expect(throws: RawControl.Failure.self) { try result.get() }
    }

    @Test func overheadIsPipelineTimeOverControlTimeRoundByRound() {
        #expect(ControlOverhead.ratios(pipelineTimes: [110, 200, 50], controlTimes: [100, 100]) == [1.1, 2])
        // Rates: 80 images/s through the pipeline against 100 by hand is 1.25× the time.
        #expect(ControlOverhead.ratios(pipelineRates: [80, 100], controlRates: [100, 100]) == [1.25, 1])
        let row = ControlOverhead.row("concurrency=8 cache=memory", [1.3, 1.1, 1.2])
        #expect(row.metric == "overhead-vs-control" && row.direction == .lowerIsBetter)
        #expect(row.p50 == 1.2)
    }

    @Test(arguments: [(1.05, GoalRow.Verdict.pass), (1.1, .pass), (1.12, .miss)])
    func memoryCacheGoalAtConcurrency8(ratio: Double, verdict: GoalRow.Verdict) {
        let rows = [
            ControlOverhead.row("concurrency=1 transport=ahc cache=memory", [9]),   // another level: ignored
            ControlOverhead.row("concurrency=8 transport=ahc cache=memory", [ratio]),
            ControlOverhead.row("concurrency=8 transport=ahc cache=memory+disk", [1.14]),
            ControlOverhead.row("size=4000x3000 load=single cache=memory", [1.06]),
        ]
        let goals = ControlGoals.rows(rows)
        #expect(goals.map(\.verdict) == [verdict, .pass, .miss])
        #expect(ReportSummary.rows(rows).contains { $0.answer.contains(String(format: "%.2f× at concurrency 8", ratio)) })
    }

    @Test func theWritingControlsRatioIsReportedAndNeverTakenForTheDiskGoal() {
        let rows = [
            ControlOverhead.row("concurrency=8 transport=ahc cache=memory+disk", [1.3],
                                metric: ControlOverhead.diskControlMetric),
            ControlOverhead.row("concurrency=8 transport=ahc cache=memory+disk", [2.2]),
        ]
        #expect(ControlGoals.rows(rows)[1].measured == "2.20×")
        let summary = ControlGoals.summary(rows)?.1 ?? ""
        #expect(summary.contains("2.20× with a disk cache;") && summary.contains("1.30× with a disk cache over a control"))
    }

    @Test func goalsWithoutRowsAreNotMeasured() {
        #expect(ControlGoals.rows([]).allSatisfy { $0.verdict == .notMeasured && $0.measured == "—" })
        #expect(ControlGoals.summary([]) == nil)
    }

    /// The body's result, so the server is shut down before any expectation fails.
    private func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}
