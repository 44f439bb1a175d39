import Foundation
import ImagoTestServer

/// Scenario 9 (issue 12): a shared cache tier. N worker processes, each with a private disk
/// cache, load the same image at once: straight from the origin (`direct`), through one nginx
/// caching reverse proxy that has not seen it yet (`proxy-cold`: `proxy_cache_lock` lets one
/// request through and holds the rest), and through the proxy once it holds it (`proxy-warm`:
/// fresh workers, fresh disk caches). Rows: origin requests and each round's median and
/// slowest time to pixels. Without nginx the proxy rows are skipped with the reason.
public struct ProxyTierScenario: BenchScenario {
    public let name = "proxy-tier"
    public let question = "N processes with private disk caches load one image: origin requests and time to pixels, direct and through a shared nginx caching proxy (cold, then warm)?"

    public init() {}

    /// Worker processes per round: 4 and 8.
    static let fleets = [4, 8]
    /// How the workers reach the origin.
    enum Tier: String, CaseIterable { case direct, proxyCold = "proxy-cold", proxyWarm = "proxy-warm" }
    /// The origin's wait before it answers, standing for an origin across a network: 100 ms.
    static let originLatency = Duration.milliseconds(100)
    /// Rounds per fleet, each with a fresh URL (a cold proxy) and fresh disk caches: 4 (quick: 2).
    static func rounds(quick: Bool) -> Int { quick ? 2 : 4 }
    /// The metrics of every row, with their units.
    static let metrics = [("origin-requests", "count"), ("time-to-pixels-median", "ms"), ("time-to-pixels-max", "ms")]

    public func plannedUnits(quick: Bool) -> Int { Self.fleets.count * Self.rounds(quick: quick) }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let input = try context.input(.jpegBaseline, megapixels: 2)
        let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input.path)))
        let origin = try await TestServer.start()
        var proxy: NginxServer?
        var skipped: String?
        do {
            proxy = try await NginxServer.start(.init(locations: [.prefix("/", .cachingProxy(to: .url(origin.baseURL)))]))
        } catch {
            skipped = "\(error)"
            context.progress.log("proxy-tier: proxy rows skipped: \(error)")
        }
        var results: [BenchResult] = []
        do {
            for fleet in Self.fleets {
                var samples: [Tier: [[Double]]] = [:]   // per tier: requests, medians, maxima
                for round in 0..<Self.rounds(quick: context.quick) {
                    for tier in Tier.allCases {
                        let base: URL
                        switch tier {
                        case .direct: base = origin.baseURL
                        case .proxyCold, .proxyWarm:
                            guard let proxy else { continue }
                            base = proxy.baseURL
                        }
                        // The warm tier reuses the cold tier's URL: the proxy holds it by then.
                        let path = "/tier/\(fleet)/\(tier == .direct ? "direct" : "proxy")/\(round).jpg"
                        if tier != .proxyWarm {
                            origin.setRoute(path, Route(body: body, contentType: "image/jpeg", faults: Faults(
                                latencyBeforeHead: Self.originLatency, headers: ["Cache-Control": "max-age=3600"])))
                        }
                        let before = origin.counters.requests(for: path)
                        let scratch = try ScratchDirectory("proxy-tier")
                        let times = try await WorkerProcesses.run(
                            fleet, executable: context.executable, url: URL(string: base.absoluteString + path)!,
                            scratch: scratch.url).map(\.timeToPixelsMs).sorted()
                        let row = [Double(origin.counters.requests(for: path) - before),
                                   SampleStatistics(times)?.p50 ?? .nan, times.last ?? .nan]
                        samples[tier, default: [[], [], []]] = zip(samples[tier, default: [[], [], []]], row).map { $0 + [$1] }
                    }
                    context.progress.advance()
                }
                for tier in Tier.allCases {
                    let parameters = Parameters.make(["processes": "\(fleet)", "tier": tier.rawValue,
                                                      "origin-latency": "100ms", "size": input.sizeLabel])
                    for (index, (metric, unit)) in Self.metrics.enumerated() {
                        if let values = samples[tier]?[index] {
                            results.append(BenchResult(scenario: name, parameters: parameters, metric: metric, unit: unit,
                                                       direction: .lowerIsBetter, samples: values))
                        } else {
                            results.append(BenchResult(scenario: name, parameters: parameters, metric: metric, unit: unit,
                                                       direction: .lowerIsBetter, skipped: skipped ?? "not run"))
                        }
                    }
                }
            }
        } catch {
            await proxy?.stop()
            try? await origin.shutdown()
            throw error
        }
        await proxy?.stop()
        try await origin.shutdown()
        return results
    }
}
