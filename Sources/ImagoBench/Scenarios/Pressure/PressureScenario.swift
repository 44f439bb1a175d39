import Foundation
import ImagoTestServer

/// Scenario 8 (issue 10): a few hundred distinct 2–40 MP loads in a fresh process inside a
/// memory cgroup of 256 or 512 MiB, with the default configuration and with the memory budget
/// and pressure response off, plus the same workload without a limit for reference.
public struct PressureScenario: BenchScenario {
    public let name = "pressure"
    public let question = "Inside a 256 or 512 MiB memory cgroup, does the default pipeline finish a few hundred distinct 2–40 MP loads without being OOM-killed, and what does the limit cost in throughput?"

    public init() {}

    /// Loads per run: 300 (quick: 120).
    static func loadCount(quick: Bool) -> Int { quick ? 120 : 300 }
    /// Loads in flight: 8.
    static let concurrency = 8
    /// cgroup limits: 256 and 512 MiB (each run also once without a limit).
    static let limits = [256 << 20, 512 << 20]
    /// Loads of the unmeasured warm-up run: 24.
    static let warmUpLoads = 24
    /// Runs, in order: without a limit first (the throughput reference), then per limit.
    static var runs: [(limit: Int?, mode: PressureMode)] {
        ([nil] + limits.map(Optional.some)).flatMap { limit in PressureMode.allCases.map { (limit, $0) } }
    }

    public func plannedUnits(quick: Bool) -> Int { Self.runs.count }

    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let server = try await TestServer.start()
        do {
            let results = try await run(context, server: server)
            try await server.shutdown()
            return results
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    private func run(_ context: BenchContext, server: TestServer) async throws -> [BenchResult] {
        let urls = try PressureServing.serve(count: Self.loadCount(quick: context.quick), server: server,
                                             inputsDirectory: context.inputsDirectory) { context.progress.log($0) }
        let sandbox = MemoryCgroupSandbox.make()
        switch sandbox {
        case .success(let sandbox): context.progress.log("pressure: cgroup \(sandbox.location.version.rawValue) under \(sandbox.location.directory)")
        case .failure(let reason): context.progress.log("pressure: no memory cgroup: \(reason)")
        }
        // One short unmeasured run first, so the first measured run (the unlimited reference)
        // does not pay alone for the server's and the system's first-use costs.
        let warmUp = PressureWorkload(urls: Array(urls.prefix(Self.warmUpLoads)), concurrency: Self.concurrency, mode: .defaults)
        let warmed = await PressureRun.run(executable: context.executable, workload: warmUp, limitBytes: nil, sandbox: sandbox)
        context.progress.log("pressure: warm-up " + PressureRows.summary(limit: nil, mode: .defaults, warmed))
        var outcomes: [PressureRows.Run] = []
        for (limit, mode) in Self.runs {
            let workload = PressureWorkload(urls: urls, concurrency: Self.concurrency, mode: mode)
            let outcome = await PressureRun.run(executable: context.executable, workload: workload, limitBytes: limit,
                                                sandbox: sandbox)
            context.progress.log("pressure: " + PressureRows.summary(limit: limit, mode: mode, outcome))
            outcomes.append(PressureRows.Run(limitBytes: limit, mode: mode, outcome: outcome))
            context.progress.advance()
        }
        return PressureRows.rows(scenario: name, loads: urls.count, concurrency: Self.concurrency, runs: outcomes)
    }
}
