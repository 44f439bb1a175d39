import Foundation

/// `Reports/baseline.json`: the memory figures `make bench-check` compares against, with the
/// tolerances that decide what counts as a change. Committed; rewritten by `make bench-baseline`.
public struct Baseline: Codable, Sendable, Equatable {
    /// How far a measurement may move before it counts as a change. The allowed distance is
    /// the larger of `relative × baseline` and `absoluteBytes`, on both sides: RSS moves by a
    /// few pages from run to run, so small figures need the absolute floor.
    public struct Tolerance: Codable, Sendable, Equatable {
        /// Relative tolerance (default 0.15: ±15%).
        public var relative: Double
        /// Absolute floor in bytes (default 4 MiB).
        public var absoluteBytes: Int

        public init(relative: Double = 0.15, absoluteBytes: Int = 4 << 20) {
            self.relative = relative
            self.absoluteBytes = absoluteBytes
        }

        /// The allowed distance from `baseline`, in bytes.
        public func allowance(for baseline: Int) -> Int {
            max(Int((Double(abs(baseline)) * relative).rounded(.up)), absoluteBytes)
        }
    }

    /// One gated figure.
    public struct Entry: Codable, Sendable, Equatable {
        /// The gate scenario, e.g. "decode-12mp-jpeg".
        public var scenario: String
        /// "peak-rss-growth", "held-after" or "malloc-held".
        public var metric: String
        /// The median of the baseline's runs, in bytes.
        public var bytes: Int
        /// A tolerance for this entry alone (default nil: the file's tolerance).
        public var tolerance: Tolerance?

        public init(scenario: String, metric: String, bytes: Int, tolerance: Tolerance? = nil) {
            self.scenario = scenario
            self.metric = metric
            self.bytes = bytes
            self.tolerance = tolerance
        }
    }

    /// Says what the file is, for someone who opens it.
    public var note: String
    public var tolerance: Tolerance
    /// Where the baseline was measured (figures from another machine may not transfer).
    public var machine: MachineInfo
    public var entries: [Entry]

    public init(note: String = Baseline.defaultNote, tolerance: Tolerance = Tolerance(), machine: MachineInfo,
                entries: [Entry]) {
        self.note = note
        self.tolerance = tolerance
        self.machine = machine
        self.entries = entries
    }

    public static let defaultNote = "Memory baseline for `make bench-check` (written by `make bench-baseline`). "
        + "Each entry is the median of fresh-process runs, in bytes; a measurement outside "
        + "baseline ± max(relative × baseline, absoluteBytes) is a regression (exit 2) or an improvement (exit 4)."

    public static func load(from url: URL) throws -> Baseline {
        try JSONDecoder().decode(Baseline.self, from: Data(contentsOf: url))
    }

    /// Pretty, key-sorted JSON with a trailing newline, so diffs of the committed file stay small.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
