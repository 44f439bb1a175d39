import Foundation
import ImagoCorpus
import ImagoTestServer

/// `bench-check`'s large-decode run: one 40 MP PNG (153 MiB of pixels, a 65 MiB body) loaded
/// by `imago load` with each fetch strategy, each in a fresh process inside a 192 MiB memory
/// cgroup. The limit holds the pixels but not the pixels and the body: `data` must be refused
/// with `exceedsMemoryLimit` (it was OOM-killed before the decode weighed what the process
/// holds), `stream` (no body kept) must decode with its peak at most 180 MiB (the limit less
/// the sixteenth the refusal rule keeps), `file` may do either. Absolute, like the pressure
/// run: an OOM kill, another error, a crash or a peak above the limit fails (exit 2); no memory
/// cgroup: skipped with its reason.
public struct LargeDecodeGate: Sendable {
    /// The cgroup limit of each run: 192 MiB.
    public static let limitBytes = 192 << 20
    /// The image every run loads.
    public static let format = LargeInputs.Format.pngRGB8, megapixels = 40.0
    /// The strategies run, in order, and whether each must decode (else a refusal is allowed).
    public static let strategies: [(name: String, mustDecode: Bool)] = [("stream", true), ("data", false), ("file", false)]
    /// The gate's name in the table.
    public static let scenario = "large-decode-192mib"

    /// The `imago` executable whose `load` command runs in the cgroup.
    public let executable: String
    /// Where generated inputs are cached (default `.bench-inputs`).
    public let inputsDirectory: String
    public let log: @Sendable (String) -> Void

    public init(executable: String, inputsDirectory: String = ".bench-inputs", log: @escaping @Sendable (String) -> Void) {
        self.executable = executable
        self.inputsDirectory = inputsDirectory
        self.log = log
    }

    /// One strategy's run: what the cgroup saw, or why there was no cgroup.
    public struct Run: Sendable {
        public let strategy: String
        public let mustDecode: Bool
        public let outcome: Result<CgroupOutcome, CgroupUnavailable>
    }

    /// Serves the image from a loopback server of this process and loads it once per strategy.
    public func measure() async throws -> [Run] {
        let input = try BenchInputs.prepare(Self.format, megapixels: Self.megapixels, directory: inputsDirectory, log: log)
        let server = try await TestServer.start()
        do {
            server.setRoute("/large.png", Route(body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: input.path))),
                                                contentType: "image/png"))
            let url = server.url(for: "/large.png").absoluteString
            var runs: [Run] = []
            for (strategy, mustDecode) in Self.strategies {
                let outcome: Result<CgroupOutcome, CgroupUnavailable>
                switch MemoryCgroupSandbox.make() {
                case .failure(let unavailable): outcome = .failure(unavailable)
                case .success(let sandbox):
                    do {
                        outcome = .success(try await sandbox.runDetached(executable, ["load", "--strategy", strategy, url],
                                                                         limitBytes: Self.limitBytes, timeout: .seconds(300)))
                    } catch let unavailable as CgroupUnavailable {
                        outcome = .failure(unavailable)
                    }
                }
                let run = Run(strategy: strategy, mustDecode: mustDecode, outcome: outcome)
                log("bench-check: large decode, \(strategy): " + Self.summary(run))
                runs.append(run)
            }
            try await server.shutdown()
            return runs
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    /// How a run ended, in words: "decoded", "refused (exceedsMemoryLimit)", or what went wrong.
    static func ending(_ outcome: CgroupOutcome) -> (decoded: Bool, refused: Bool, text: String) {
        let errors = String(decoding: outcome.standardError, as: UTF8.self)
        if outcome.killedByOOM { return (false, false, "OOM-killed") }
        if outcome.end == .exited(0) { return (true, false, "decoded") }
        if outcome.end == .exited(1), errors.contains("exceedsMemoryLimit") { return (false, true, "refused (exceedsMemoryLimit)") }
        let last = errors.split(separator: "\n").last.map(String.init) ?? ""
        return (false, false, "\(outcome.end.description): \(last.prefix(160))")
    }

    static func summary(_ run: Run) -> String {
        switch run.outcome {
        case .failure(let unavailable): "skipped (\(unavailable.reason))"
        case .success(let outcome):
            ending(outcome).text + ", peak " + (outcome.peakBytes.map { String(format: "%.1f MiB", Double($0) / 1_048_576) } ?? "not reported")
                + ", \(outcome.oomKills) OOM kills"
        }
    }

    /// The gate's judgement of the runs (the pressure run's verdict type and exit rules).
    public static func verdict(_ runs: [Run]) -> PressureGate.Verdict {
        let skipped = runs.compactMap { run -> String? in if case .failure(let u) = run.outcome { u.reason } else { nil } }
        if let reason = skipped.first {
            return PressureGate.Verdict(status: .skipped, lines: [BaselineComparison.line([scenario, "all", "—", "skipped: \(reason)", "—", "SKIPPED"])],
                                        conclusion: "bench-check: large-decode run skipped (\(reason)); not a failure")
        }
        var lines: [String] = []
        var failures: [String] = []
        for run in runs {
            guard case .success(let outcome) = run.outcome else { continue }
            let end = ending(outcome)
            let endedWell = end.decoded || (end.refused && !run.mustDecode)
            // The kernel keeps every run under the limit; a run that must decode must also keep the
            // sixteenth the refusal rule leaves for the kernel (the streamed image: pixels + 8 MiB).
            let ceiling = run.mustDecode ? limitBytes - limitBytes / 16 : limitBytes
            let peakWithin = (outcome.peakBytes ?? 0) <= ceiling
            let required = run.mustDecode ? "decoded" : "decoded or refused"
            lines.append(BaselineComparison.line([scenario, "\(run.strategy) outcome", required, end.text, "absolute", endedWell ? "PASS" : "FAIL"]))
            lines.append(BaselineComparison.line([scenario, "\(run.strategy) oom-kills", "= 0", "\(outcome.oomKills)", "absolute",
                                                  outcome.oomKills == 0 ? "PASS" : "FAIL"]))
            lines.append(BaselineComparison.line([scenario, "\(run.strategy) peak-usage", String(format: "≤ %.1f MiB", Double(ceiling) / 1_048_576),
                                                  outcome.peakBytes.map { String(format: "%.1f MiB", Double($0) / 1_048_576) } ?? "not reported",
                                                  "absolute", peakWithin ? "PASS" : "FAIL"]))
            if !endedWell { failures.append("\(run.strategy) \(end.text)") }
            if outcome.oomKills > 0 { failures.append("\(run.strategy) \(outcome.oomKills) OOM kills") }
            if !peakWithin { failures.append("\(run.strategy) peak above the limit") }
        }
        let conclusion = failures.isEmpty
            ? "bench-check: large-decode run at 192.0 MiB passed (no OOM kill; stream decoded, data and file decoded or refused)"
            : "bench-check: large-decode run at 192.0 MiB FAILED: " + failures.joined(separator: ", ") + " (exit 2)"
        return PressureGate.Verdict(status: failures.isEmpty ? .pass : .fail, lines: lines, conclusion: conclusion)
    }
}
