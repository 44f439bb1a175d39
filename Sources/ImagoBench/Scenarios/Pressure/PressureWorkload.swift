import Foundation
import ImagoCorpus

/// What `imago bench-pressure-workload JSON` loads: every URL once, `concurrency` at a time,
/// through a pipeline configured by `mode`. Codable: the parent passes it as one argument.
public struct PressureWorkload: Codable, Sendable, Equatable {
    /// Distinct URLs in load order.
    public var urls: [String]
    /// Loads in flight at once (the scenario uses 8).
    public var concurrency: Int
    public var mode: PressureMode

    public init(urls: [String], concurrency: Int, mode: PressureMode) {
        self.urls = urls
        self.concurrency = concurrency
        self.mode = mode
    }
}

/// What the workload child prints as its last line (see `PressureWorkloadOutput`).
public struct PressureWorkloadResult: Codable, Sendable, Equatable {
    public var loadsAttempted: Int
    public var loadsCompleted: Int
    /// Failed loads per error description.
    public var failures: [String: Int]
    /// From the first load started to the last one finished.
    public var wallSeconds: Double
    /// The pipeline's counters at the end, by field name (only the fields this build has).
    public var counters: [String: Int]
    /// The child's resident high-water mark (`VmHWM`), or nil off Linux.
    public var peakResidentBytes: Int?

    public init(loadsAttempted: Int, loadsCompleted: Int, failures: [String: Int], wallSeconds: Double,
                counters: [String: Int], peakResidentBytes: Int?) {
        self.loadsAttempted = loadsAttempted
        self.loadsCompleted = loadsCompleted
        self.failures = failures
        self.wallSeconds = wallSeconds
        self.counters = counters
        self.peakResidentBytes = peakResidentBytes
    }

}

/// The images of one pressure workload: sizes mixed like a photo feed, in a seeded shuffle.
public enum PressurePlan {
    /// The mix: about 2/3 of the loads at 2 MP, a quarter at 12 MP, the rest at 40 MP.
    public static func sizes(count: Int) -> [Double] {
        let twelve = count / 4
        let two = count * 2 / 3
        let forty = count - two - twelve
        return Array(repeating: 2, count: two) + Array(repeating: 12, count: twelve) + Array(repeating: 40, count: forty)
    }

    /// `sizes(count:)` shuffled by a Fisher–Yates pass over `SeededGenerator(seed:)`, so every
    /// run (and every machine) loads the same sequence (default seed 10: issue 10).
    public static func order(count: Int, seed: UInt64 = 10) -> [Double] {
        var sizes = sizes(count: count)
        var generator = SeededGenerator(seed: seed)
        for index in stride(from: sizes.count - 1, to: 0, by: -1) {
            sizes.swapAt(index, generator.int(in: 0...index))
        }
        return sizes
    }

    /// The URL path of the `index`-th load: distinct per load, so every load is its own cache key
    /// and its own decode even though the encoded bytes of one size are shared.
    public static func path(index: Int, megapixels: Double) -> String {
        "/pressure/\(Int(megapixels))mp/\(index).jpg"
    }
}
