import Foundation
import ImagoCorpus

/// Everything a scenario needs from the run that hosts it.
public struct BenchContext: Sendable {
    /// `--quick`: fewer sizes and samples (default false).
    public let quick: Bool
    /// Where generated inputs are cached (default `.bench-inputs`, outside git).
    public let inputsDirectory: String
    /// This executable, re-run for fresh-process samples.
    public let executable: String
    /// The decode and thumbnail peers (`DecodePeers.all`), each installed or why not.
    public let peers: [PeerStatus]
    /// Scenario progress (TTY line or plain log lines).
    public let progress: ProgressReporter

    public init(quick: Bool, inputsDirectory: String, executable: String,
                peers: [PeerStatus], progress: ProgressReporter) {
        self.quick = quick
        self.inputsDirectory = inputsDirectory
        self.executable = executable
        self.peers = peers
        self.progress = progress
    }

    /// The path of the running executable, for `executable`: /proc/self/exe where there is one
    /// (the first argument may be a relative path or a name found on PATH).
    public static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// A generated input, logged through the progress display when it must be made first.
    public func input(_ format: LargeInputs.Format, megapixels: Double) throws -> BenchInput {
        try BenchInputs.prepare(format, megapixels: megapixels, directory: inputsDirectory) { progress.log($0) }
    }
}

/// One benchmark scenario: a named question the report answers with rows.
public protocol BenchScenario: Sendable {
    /// The `--scenario` name and the CSV `scenario` column, e.g. "decode".
    var name: String { get }
    /// One sentence for the report: what the scenario compares.
    var question: String { get }
    /// About how many progress units (samples, rounds, processes) a run takes, for the ETA.
    func plannedUnits(quick: Bool) -> Int
    func run(_ context: BenchContext) async throws -> [BenchResult]
}

/// Every scenario `imago bench` knows, in the order it runs them.
public enum BenchScenarios {
    public static let all: [any BenchScenario] = [
        DecodeScenario(), ThumbnailScenario(), FetchStrategyScenario(), CacheScenario(),
        CancellationScenario(), CoalescingScenario(), ThroughputScenario(), PressureScenario(), ProxyTierScenario(),
        StreamingScenario(), FeedScenario(),
    ]

    public static var names: [String] { all.map(\.name) }

    /// The scenarios called `names` (all when empty), in run order; throws on an unknown name.
    public static func select(_ names: [String]) throws -> [any BenchScenario] {
        if let unknown = names.first(where: { name in !all.contains { $0.name == name } }) {
            throw BenchError("unknown scenario \(unknown); known: \(self.names.joined(separator: ", "))")
        }
        return names.isEmpty ? all : all.filter { names.contains($0.name) }
    }
}
