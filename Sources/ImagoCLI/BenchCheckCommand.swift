import ArgumentParser
import Foundation
import ImagoBench

/// Options shared by the memory gate's two commands.
struct MemoryGateOptions: ParsableArguments {
    @Option(help: "The committed baseline.")
    var baseline = "Reports/baseline.json"

    @Option(help: "Fresh processes per scenario; the median is compared.")
    var runs = 3

    @Option(help: "Where generated inputs are cached (outside git).")
    var inputs = ".bench-inputs"

    func validate() throws {
        if runs < 1 { throw ValidationError("--runs must be at least 1") }
    }

    func measure() async throws -> [MemoryGate.Measurement] {
        let gate = MemoryGate(executable: BenchCommand.executablePath, inputsDirectory: inputs, runs: runs) { line in
            printError(line)
        }
        return try await gate.measure()
    }

    /// The absolute pressure run (one fresh process in a 256 MiB memory cgroup).
    func measurePressure() async throws -> PressureRun.Outcome {
        try await PressureGate(executable: BenchCommand.executablePath, inputsDirectory: inputs) { printError($0) }.measure()
    }

    /// The absolute large-decode run (a 40 MP PNG by each strategy in a 192 MiB memory cgroup).
    func measureLargeDecode() async throws -> [LargeDecodeGate.Run] {
        try await LargeDecodeGate(executable: BenchCommand.executablePath, inputsDirectory: inputs) { printError($0) }.measure()
    }
}

/// `imago bench-check`: the CI memory-regression gate. Exit 0 within tolerance, 2 on a
/// regression or a failed pressure run, 4 on an improvement beyond tolerance (update the
/// baseline).
struct BenchCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-check",
        abstract: "Compare the memory scenarios with Reports/baseline.json.",
        discussion: "Also runs the pressure workload once with the default configuration in a 256 MiB memory cgroup, and loads a 40 MP PNG with each fetch strategy in a 192 MiB one (stream must decode; data and file may instead be refused with exceedsMemoryLimit): any OOM kill, unfinished load, other failure or peak above the limit fails (exit 2); no cgroup available: skipped with the reason, not a failure. Exit status: 0 within tolerance; 2 regression (or a baselined figure not measured, or a failed pressure run); 4 improvement beyond tolerance or a new figure (run `make bench-baseline`).")

    @OptionGroup var options: MemoryGateOptions

    func run() async throws {
        let baseline = try Baseline.load(from: URL(fileURLWithPath: options.baseline))
        let comparison = BaselineComparison(baseline: baseline, measured: try await options.measure())
        let pressure = PressureGate.verdict(try await options.measurePressure())
        let largeDecode = LargeDecodeGate.verdict(try await options.measureLargeDecode())
        (comparison.lines + pressure.lines + largeDecode.lines).forEach { print($0) }
        print(comparison.conclusion)
        print(pressure.conclusion)
        print(largeDecode.conclusion)
        let status = PressureGate.exitStatus(comparison: PressureGate.exitStatus(comparison: comparison.exitStatus, pressure: pressure),
                                             pressure: largeDecode)
        if status != 0 { throw ExitCode(status) }
    }
}

/// `imago bench-baseline`: measures the memory scenarios and rewrites the baseline, keeping
/// its tolerances.
struct BenchBaselineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-baseline", abstract: "Measure the memory scenarios and rewrite Reports/baseline.json.")

    @OptionGroup var options: MemoryGateOptions

    func run() async throws {
        let url = URL(fileURLWithPath: options.baseline)
        let previous = try? Baseline.load(from: url)
        let measured = try await options.measure()
        let entries = measured.map { measurement in
            Baseline.Entry(scenario: measurement.scenario, metric: measurement.metric, bytes: measurement.bytes,
                           tolerance: previous?.entries.first { $0.scenario == measurement.scenario && $0.metric == measurement.metric }?.tolerance
                               ?? MemoryGate.defaultTolerance(for: measurement.metric))
        }
        let baseline = Baseline(tolerance: previous?.tolerance ?? Baseline.Tolerance(), machine: .current(), entries: entries)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try baseline.json().write(to: url, atomically: true, encoding: .utf8)
        for entry in entries {
            print("\(entry.scenario) \(entry.metric): \(String(format: "%.2f MiB", Double(entry.bytes) / 1_048_576))")
        }
        print("wrote \(url.path)")
    }
}
