import Foundation
import ImagoTestServer

/// `bench-check`'s pressure run (issue 10): the pressure workload with the DEFAULT pipeline
/// configuration inside a 256 MiB memory cgroup. Its verdict is absolute, not a comparison with
/// the baseline: an OOM kill, an unfinished load or a peak above the limit fails the gate
/// (exit 2); a run that could not get a cgroup is skipped with its reason and does not fail.
public struct PressureGate: Sendable {
    /// The cgroup limit of the gate's run: 256 MiB, the limit issue 10 states its goal at.
    public static let limitBytes = 256 << 20
    /// Loads in the gate's run: 300 (as the full scenario), 8 in flight.
    public static let loads = 300, concurrency = 8
    /// The gate's name in the table.
    public static let scenario = "pressure-256mib-defaults"

    /// This executable, re-run as `bench-pressure-workload`.
    public let executable: String
    /// Where generated inputs are cached (default `.bench-inputs`).
    public let inputsDirectory: String
    public let log: @Sendable (String) -> Void

    public init(executable: String, inputsDirectory: String = ".bench-inputs", log: @escaping @Sendable (String) -> Void) {
        self.executable = executable
        self.inputsDirectory = inputsDirectory
        self.log = log
    }

    /// Serves the workload from a loopback server of this process and runs it once.
    public func measure() async throws -> PressureRun.Outcome {
        let server = try await TestServer.start()
        do {
            let urls = try PressureServing.serve(count: Self.loads, server: server, inputsDirectory: inputsDirectory, log: log)
            let workload = PressureWorkload(urls: urls, concurrency: Self.concurrency, mode: .defaults)
            let outcome = await PressureRun.run(executable: executable, workload: workload, limitBytes: Self.limitBytes,
                                                sandbox: MemoryCgroupSandbox.make())
            log("bench-check: pressure " + PressureRows.summary(limit: Self.limitBytes, mode: .defaults, outcome))
            try await server.shutdown()
            return outcome
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    /// The gate's judgement of one run.
    public struct Verdict: Sendable, Equatable {
        public enum Status: String, Sendable { case pass, fail, skipped }
        public let status: Status
        /// Lines for bench-check's table (`BaselineComparison.line` layout).
        public let lines: [String]
        /// The last line of the output for this gate.
        public let conclusion: String

        /// 2 on a failure, else 0 (a skip never fails CI: a machine without a writable memory
        /// cgroup cannot run the check, which says nothing about Imago).
        public var exitStatus: Int32 { status == .fail ? BaselineComparison.exitRegression : BaselineComparison.exitWithin }
    }

    public static func verdict(_ outcome: PressureRun.Outcome) -> Verdict {
        guard case .measured(let m) = outcome else {
            let reason = outcome.skipReason ?? ""
            return Verdict(status: .skipped, lines: [BaselineComparison.line([scenario, "all", "—", "skipped: \(reason)", "—", "SKIPPED"])],
                           conclusion: "bench-check: pressure run skipped (\(reason)); not a failure")
        }
        let limit = m.limitBytes ?? limitBytes
        let mib = { (bytes: Int) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        let checks: [(metric: String, required: String, measured: String, passed: Bool)] = [
            ("oom-kills", "= 0", "\(m.oomKills)", m.oomKills == 0),
            ("loads-completed", "= \(m.loadsTotal)", "\(m.loadsCompleted)", m.loadsCompleted == m.loadsTotal),
            // The child must also have ended well: a crash after the last load is still a failure.
            ("child-exit", "exit 0", m.end.short, m.finished && m.end == .exited(0)),
            // No peak reported (v2 before Linux 5.19) cannot be judged; the kernel enforces the limit anyway.
            ("peak-usage", "≤ \(mib(limit))", m.peakCgroupBytes.map(mib) ?? "not reported",
             (m.peakCgroupBytes ?? 0) <= limit),
        ]
        let failed = checks.filter { !$0.passed }
        let lines = checks.map {
            BaselineComparison.line([scenario, $0.metric, $0.required, $0.measured, "absolute", $0.passed ? "PASS" : "FAIL"])
        }
        let conclusion = failed.isEmpty
            ? "bench-check: pressure run at \(mib(limit)) passed (0 OOM kills, every load completed, peak within the limit)"
            : "bench-check: pressure run at \(mib(limit)) FAILED: " + failed.map { "\($0.metric) \($0.measured)" }.joined(separator: ", ")
                + " (exit 2)"
        return Verdict(status: failed.isEmpty ? .pass : .fail, lines: lines, conclusion: conclusion)
    }

    /// bench-check's exit status: a failed pressure run is a regression (2) whatever the
    /// baseline comparison says; otherwise the comparison decides (0, 2 or 4).
    public static func exitStatus(comparison: Int32, pressure: Verdict) -> Int32 {
        pressure.exitStatus == BaselineComparison.exitRegression ? BaselineComparison.exitRegression : comparison
    }
}
