import Foundation

/// How much the loader scenario measures. Every knob states its default for a full run and for
/// `--quick`; tests may shrink them further.
public struct LoaderBenchPlan: Sendable, Equatable {
    /// Rounds of time to pixels per fetch strategy (each: network, control, memory, disk),
    /// interleaved: 15 (quick: 3).
    public var timeRounds: Int
    /// Untimed rounds before those, so neither side's first connection is counted: 1.
    public var warmupRounds: Int
    /// Identical loads started at once, one count per crowd: 1, 10, 100.
    public var crowds: [Int]
    /// Rounds per crowd, each on a fresh loader and URL: 3 (quick: 1).
    public var crowdRounds: Int
    /// Distinct images per throughput run: 500 (quick: 40).
    public var throughputImages: Int
    /// Loads in flight during a throughput run: 1, 8, 16.
    public var concurrencies: [Int]
    /// Throughput runs per concurrency, loader and control interleaved: 3 (quick: 1).
    public var throughputRounds: Int
    /// Size of the image timed to pixels: 1600×1200, a 2 MP JPEG (quality 85).
    public var timedImageSize: (width: Int, height: Int)
    /// Size of each throughput image: 640×480 JPEG, a feed thumbnail's order of size.
    public var throughputImageSize: (width: Int, height: Int)
    /// How long one load may take before the subject's run ends with `timedOut`: 60 s.
    public var loadTimeout: Duration
    /// Distinct images (the throughput images, the first ones) loaded while resident memory is
    /// measured: 100 (quick: 20).
    public var memoryImages: Int
    /// Loads in flight while memory is measured: 8.
    public var memoryConcurrency: Int
    /// Memory rounds, loader and control alternating: 3 (quick: 1).
    public var memoryRounds: Int
    /// Cancels per fetch strategy and point, loader and control alternating: 10 (quick: 3).
    public var cancelRounds: Int
    /// Where in the response a load is cancelled, as a fraction of the body (nil: while the
    /// server holds the head): before the head and at half the body.
    public var cancelPoints: [Double?]
    /// How long after `cancel()` the server must see the request end to count it: 2 s.
    public var cancelCloseTimeout: Duration

    /// The plan of a full run, or of `--quick`.
    public init(quick: Bool) {
        timeRounds = quick ? 3 : 15
        warmupRounds = 1
        crowds = [1, 10, 100]
        crowdRounds = quick ? 1 : 3
        throughputImages = quick ? 40 : 500
        concurrencies = [1, 8, 16]
        throughputRounds = quick ? 1 : 3
        timedImageSize = (1600, 1200)
        throughputImageSize = (640, 480)
        loadTimeout = .seconds(60)
        memoryImages = quick ? 20 : 100
        memoryConcurrency = 8
        memoryRounds = quick ? 1 : 3
        cancelRounds = quick ? 3 : 10
        cancelPoints = [nil, 0.5]
        cancelCloseTimeout = .seconds(2)
    }

    /// Progress units of one subject offering `strategies` fetch strategies (one per round).
    func plannedUnits(strategies: Int) -> Int {
        strategies * (warmupRounds + timeRounds + cancelPoints.count * cancelRounds) + crowds.count * crowdRounds
            + concurrencies.count * throughputRounds + memoryRounds
    }

    /// Every knob equal (written out: tuples are not `Equatable`).
    public static func == (a: Self, b: Self) -> Bool {
        a.timeRounds == b.timeRounds && a.warmupRounds == b.warmupRounds && a.crowds == b.crowds && a.crowdRounds == b.crowdRounds
            && a.throughputImages == b.throughputImages && a.concurrencies == b.concurrencies
            && a.throughputRounds == b.throughputRounds && a.timedImageSize == b.timedImageSize
            && a.throughputImageSize == b.throughputImageSize && a.loadTimeout == b.loadTimeout
            && a.memoryImages == b.memoryImages && a.memoryConcurrency == b.memoryConcurrency
            && a.memoryRounds == b.memoryRounds && a.cancelRounds == b.cancelRounds && a.cancelPoints == b.cancelPoints
            && a.cancelCloseTimeout == b.cancelCloseTimeout
    }
}
