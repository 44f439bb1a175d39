import Foundation

/// One pressure workload in a fresh child process, inside a memory cgroup with a limit (or
/// with none), and what came of it. Used by the pressure scenario and by `bench-check`.
public enum PressureRun {
    /// What one run measured.
    public struct Measurement: Sendable, Equatable {
        public let mode: PressureMode
        /// The cgroup's limit, or nil for the unlimited run.
        public let limitBytes: Int?
        public let loadsTotal: Int
        /// From the child's result, or (when it was killed) from the loads it reported finished.
        public let loadsCompleted: Int
        /// Failed loads per error description (empty when the child never wrote its result).
        public let failures: [String: Int]
        /// Failed loads: from the child's result, or (killed) its progress lines.
        public let loadsFailed: Int
        public let oomKills: Int
        /// Peak memory charged to the cgroup, or nil when the run had no cgroup.
        public let peakCgroupBytes: Int?
        /// The child's own result; nil when it died before printing it.
        public let result: PressureWorkloadResult?
        /// The state after the child's last finished load (what a killed child had seen).
        public let lastProgress: PressureWorkloadOutput.Progress?
        /// Wall time as the parent saw it, start to exit (for a killed child: time to the kill).
        public let elapsedSeconds: Double
        /// How the child ended.
        public let end: ChildEnd
        /// The child's standard error, last lines (for the log when something went wrong).
        public let errorTail: String

        /// Whether the child finished the workload and reported (not killed, not crashed).
        public var finished: Bool { result != nil }
        /// "exit 0", "killed by signal 9 (OOM kill)", "killed after the timeout".
        public var endDescription: String {
            end.description + (end == .signalled(SIGKILL) && oomKills > 0 ? " (OOM kill)" : "")
        }
        /// The child's own wall time when it finished, else the parent's.
        public var wallSeconds: Double { result?.wallSeconds ?? elapsedSeconds }
        /// The pipeline's counters at the end, or (killed) as of the last finished load.
        public var counters: [String: Int]? { result?.counters ?? lastProgress?.counters }
        /// Loads per second, or nil when the child did not finish.
        public var throughput: Double? { finished && wallSeconds > 0 ? Double(loadsCompleted) / wallSeconds : nil }
    }

    public enum Outcome: Sendable, Equatable {
        case measured(Measurement)
        /// No cgroup (or no child) could be had; the reason.
        case skipped(String)
    }

    /// Runs `workload` as `executable bench-pressure-workload JSON`. With a limit the run needs
    /// the sandbox; without one it runs in a limitless cgroup when there is a sandbox (to read
    /// the peak charge), else as a plain child (throughput only).
    ///
    /// - Parameter timeout: the child is killed after this long (default 10 minutes).
    public static func run(executable: String, workload: PressureWorkload, limitBytes: Int?,
                           sandbox: Result<MemoryCgroupSandbox, CgroupUnavailable>,
                           timeout: Duration = .seconds(600)) async -> Outcome {
        let spec: String
        do {
            spec = String(decoding: try JSONEncoder().encode(workload), as: UTF8.self)
        } catch {
            return .skipped("cannot encode the workload: \(error)")
        }
        let arguments = ["bench-pressure-workload", spec]
        let start = ContinuousClock.now
        do {
            switch sandbox {
            case .success(let sandbox):
                let outcome = try await sandbox.runDetached(executable, arguments, limitBytes: limitBytes, timeout: timeout)
                return .measured(measurement(workload, limitBytes: limitBytes, elapsed: ContinuousClock.now - start,
                                             output: outcome.standardOutput, errors: outcome.standardError,
                                             oomKills: outcome.oomKills, peak: outcome.peakBytes, end: outcome.end))
            case .failure(let unavailable) where limitBytes != nil:
                return .skipped(unavailable.reason)
            case .failure:
                let ending = try await plainRun(executable, arguments, timeout: timeout)
                return .measured(measurement(workload, limitBytes: nil, elapsed: ContinuousClock.now - start,
                                             output: ending.standardOutput, errors: ending.standardError,
                                             oomKills: 0, peak: nil, end: ending.end))
            }
        } catch let unavailable as CgroupUnavailable {
            return .skipped(unavailable.reason)
        } catch {
            return .skipped("\(error)")
        }
    }

    static func measurement(_ workload: PressureWorkload, limitBytes: Int?, elapsed: Duration, output: Data,
                            errors: Data, oomKills: Int, peak: Int?, end: ChildEnd) -> Measurement {
        let parsed = PressureWorkloadOutput.parse(String(decoding: output, as: UTF8.self))
        let errorLines = String(decoding: errors, as: UTF8.self).split(separator: "\n").suffix(5)
        let (seconds, attoseconds) = elapsed.components
        return Measurement(mode: workload.mode, limitBytes: limitBytes, loadsTotal: workload.urls.count,
                           loadsCompleted: parsed.result?.loadsCompleted ?? parsed.loaded,
                           failures: parsed.result?.failures ?? [:],
                           loadsFailed: parsed.result.map { $0.failures.values.reduce(0, +) } ?? parsed.failed, oomKills: oomKills, peakCgroupBytes: peak,
                           result: parsed.result, lastProgress: parsed.lastProgress,
                           elapsedSeconds: Double(seconds) + Double(attoseconds) / 1e18, end: end,
                           errorTail: errorLines.joined(separator: "\n"))
    }

    private static func plainRun(_ executable: String, _ arguments: [String], timeout: Duration) async throws -> CapturedRun.Ending {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try CapturedRun.run(executable, arguments, timeout: timeout) })
            }
        }
    }
}
