import Foundation

/// The feed scenario's rows: the names its report and goals read, and how samples become rows.
enum FeedRows {
    static let scenario = "feed"

    /// Metric names, shared with the goal check.
    static let timeToFirstScreen = "time-to-first-screen", timeToAll = "time-to-all", requests = "requests",
               connections = "connections", restBeforeFirstScreen = "rest-before-first-screen",
               restStartedBeforeFirstScreen = "rest-started-before-first-screen",
               coldStart = "cold-start", coldStartVersusCurl = "cold-start/curl"

    /// The metrics of every screen-load cell, with their units.
    static let screenMetrics = [(timeToFirstScreen, "ms"), (timeToAll, "ms"), (requests, "count"),
                                (connections, "count"), (restBeforeFirstScreen, "count"),
                                (restStartedBeforeFirstScreen, "count")]

    /// `rtt=50ms strategy=data protocol=http1.1 images=100 first-screen=12`.
    static func parameters(_ cell: FeedCell, _ plan: FeedScenario.Plan) -> String {
        Parameters.make(["rtt": "\(cell.rtt)ms", "strategy": cell.strategy.rawValue, "protocol": cell.version.rawValue,
                         "images": "\(plan.images)", "first-screen": "\(plan.screenful)"])
    }

    /// One row per screen metric of `cell`: its samples, or the error as the skip reason.
    static func screenRows(_ cell: FeedCell, _ plan: FeedScenario.Plan,
                           _ outcome: Result<[FeedCellSample], any Error>) -> [BenchResult] {
        let values: [(FeedCellSample) -> Double] = [
            { $0.screen.firstScreenMilliseconds }, { $0.screen.allMilliseconds }, { Double($0.requests) },
            { Double($0.connections) }, { Double($0.screen.restBeforeFirstScreen) },
            { Double($0.screen.restStartedBeforeFirstScreen) },
        ]
        return zip(screenMetrics, values).map { metric, value in
            BenchResult(scenario: scenario, parameters: parameters(cell, plan), metric: metric.0, unit: metric.1,
                        direction: .lowerIsBetter, outcome: outcome.map { $0.map(value) })
        }
    }

    /// Imago's and curl's cold-start times and, sample by sample, their ratio.
    static func coldRows(rtt: Int, version: FeedProtocol, imago: Result<[Double], any Error>,
                         curl: Result<[Double], any Error>) -> [BenchResult] {
        func parameters(_ client: String) -> String {
            Parameters.make(["rtt": "\(rtt)ms", "protocol": version.rawValue, "client": client])
        }
        let ratio = imago.flatMap { imago in curl.map { curl in zip(imago, curl).map { $0 / $1 } } }
        return [
            BenchResult(scenario: scenario, parameters: parameters("imago"), metric: coldStart, unit: "ms",
                        direction: .lowerIsBetter, outcome: imago),
            BenchResult(scenario: scenario, parameters: parameters("curl"), metric: coldStart, unit: "ms",
                        direction: .lowerIsBetter, outcome: curl),
            BenchResult(scenario: scenario, parameters: parameters("imago"), metric: coldStartVersusCurl, unit: "×",
                        direction: .lowerIsBetter, outcome: ratio),
        ]
    }

    /// Every row of `plan`, skipped with `reason` (nginx or openssl cannot run here).
    static func skippedEverywhere(_ plan: FeedScenario.Plan, reason: String) -> [BenchResult] {
        let failure: Result<[FeedCellSample], any Error> = .failure(BenchError(reason))
        var rows = plan.roundTripTimes.flatMap { rtt in
            plan.strategies.flatMap { strategy in
                plan.protocols.flatMap { screenRows(FeedCell(rtt: rtt, strategy: strategy, version: $0), plan, failure) }
            }
        }
        for version in plan.protocols {
            rows += coldRows(rtt: plan.coldStartRoundTripTime, version: version,
                             imago: .failure(BenchError(reason)), curl: .failure(BenchError(reason)))
        }
        return rows
    }
}
