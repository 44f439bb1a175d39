import Foundation
import Imago
import ImagoTestServer
import ImagoTestSupport
import Testing
@testable import ImagoBench

/// The feed scenario at a small scale (8 thumbnails, 3 on screen, a 2 ms link, one sample per
/// cell) against a real nginx over TLS, and its goals judged from rows made up for them.
@Suite struct FeedScenarioTests {
    static let plan = FeedScenario.Plan(roundTripTimes: [2], strategies: [.data, .stream], samples: 1, images: 8,
                                        screenful: 3, coldStartRoundTripTime: 2)

    @Test(.nginxInstalled) func aSmallFeedGivesEveryRowWithSaneCounts() async throws {
        _ = try TestCertificates.sharedOrSkip()
        let inputs = FileManager.default.temporaryDirectory.appendingPathComponent("imago-feed-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: inputs) }
        let thumbnails = try FeedThumbnails.prepare(count: Self.plan.images, directory: inputs.path) { _ in }
        #expect(thumbnails.allSatisfy { FeedThumbnails.sizeRange.contains($0.bytes.count) })
        #expect(Set(thumbnails.map(\.bytes)).count == thumbnails.count, "every thumbnail has its own bytes")
        #expect(thumbnails.filter { $0.name.hasSuffix(".webp") }.count == 4, "half WebP")

        let rows = try await FeedScenario.run(Self.plan, thumbnails: thumbnails, progress: ProgressReporter(isTerminal: false))

        let screenCells = Self.plan.strategies.count * FeedProtocol.allCases.count
        #expect(rows.count == screenCells * FeedRows.screenMetrics.count + FeedProtocol.allCases.count * 3)
        #expect(rows.allSatisfy { ($0.statistics == nil) != ($0.skipped == nil) }, "measured or skipped with a reason")
        for version in FeedProtocol.allCases {
            for strategy in Self.plan.strategies {
                let cell = rows.filter { $0.parameter("protocol") == version.rawValue && $0.parameter("strategy") == strategy.rawValue }
                #expect(cell.count == FeedRows.screenMetrics.count)
                func value(_ metric: String) -> Double? { cell.first { $0.metric == metric }?.p50 }
                let label = "\(version.rawValue) \(strategy.rawValue)"
                #expect(value(FeedRows.requests) == 8, "\(label): one request per thumbnail")
                #expect((1...6).contains(value(FeedRows.connections) ?? 0), "\(label): within the connection limit")
                let first = try #require(value(FeedRows.timeToFirstScreen)), all = try #require(value(FeedRows.timeToAll))
                #expect(first > 0 && first <= all, "\(label): \(first) ms then \(all) ms")
                #expect((0...5).contains(value(FeedRows.restBeforeFirstScreen) ?? -1), "\(label): at most the 5 others")
                #expect((0...5).contains(value(FeedRows.restStartedBeforeFirstScreen) ?? -1), "\(label): at most the 5 others")
            }
        }
        let coldImago = rows.first { $0.metric == FeedRows.coldStart && $0.parameter("protocol") == "http1.1"
            && $0.parameter("client") == "imago" }
        #expect((coldImago?.p50 ?? 0) > 2, "a cold start pays at least the link's round trip: \(String(describing: coldImago))")
        let coldCurl = rows.first { $0.metric == FeedRows.coldStart && $0.parameter("protocol") == "http1.1"
            && $0.parameter("client") == "curl" }
        #expect(coldCurl?.p50 != nil || coldCurl?.skipped == FeedColdStart.curlMissing, "\(String(describing: coldCurl))")
    }

    @Test func theGoalsAreJudgedAt50MillisecondsAndNotMeasuredWhileHTTP2IsSkipped() {
        func row(_ version: FeedProtocol, _ metric: String, _ samples: [Double], skipped: String? = nil) -> BenchResult {
            let parameters = Parameters.make(["rtt": "50ms", "strategy": "data", "protocol": version.rawValue,
                                              "images": "100", "first-screen": "12"])
            if let skipped {
                return BenchResult(scenario: "feed", parameters: parameters, metric: metric, unit: "ms",
                                   direction: .lowerIsBetter, skipped: skipped)
            }
            return BenchResult(scenario: "feed", parameters: parameters, metric: metric, unit: "ms",
                               direction: .lowerIsBetter, samples: samples)
        }
        let http1 = [row(.http1, FeedRows.timeToAll, [1000, 1100, 900]), row(.http1, FeedRows.restBeforeFirstScreen, [0, 2, 0])]
        let skipped = GoalCheck.feedRows(http1 + [row(.http2, FeedRows.timeToAll, [], skipped: "no HTTP/2 here"),
                                                  row(.http2, FeedRows.restBeforeFirstScreen, [], skipped: "no HTTP/2 here")])
        #expect(skipped.map(\.verdict) == [.notMeasured, .miss, .notMeasured])
        #expect(skipped[0].measured == "skipped: no HTTP/2 here")
        #expect(skipped[1].measured == "2 of the rest first", "the worst sample judges")

        let measured = GoalCheck.feedRows(http1 + [row(.http2, FeedRows.timeToAll, [400, 390, 410]),
                                                   row(.http2, FeedRows.restBeforeFirstScreen, [0, 0, 0])])
        #expect(measured.map(\.verdict) == [.pass, .miss, .pass], "400 of 1000 ms is 0.4×")
        #expect(GoalCheck.feedRows([]).allSatisfy { $0.verdict == .notMeasured })
        #expect(GoalCheck.rows([]).contains { $0.goal.hasPrefix("feed at 50ms") }, "listed with every goal")
    }
}
