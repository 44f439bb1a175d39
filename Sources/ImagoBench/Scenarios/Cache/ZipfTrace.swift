import ImagoCorpus
/// A seeded, reproducible access trace whose key popularity follows Zipf's law (the k-th most
/// popular key is requested in proportion to 1/k^exponent), the usual model of image feeds:
/// a few images are everywhere, most are seen once or twice. Same parameters, same trace.
public struct ZipfTrace: Sendable, Equatable {
    /// Distinct keys, 0..<keyCount.
    public let keyCount: Int
    /// Skew (default 0.9; 0 is uniform, larger is more skewed).
    public let exponent: Double
    /// The generator's seed.
    public let seed: UInt64
    /// The keys in access order.
    public let accesses: [Int]
    /// Cost of each key (bytes), drawn log-uniformly between the bounds given at init.
    public let costs: [Int]

    /// - Parameters:
    ///   - scanEvery: when non-nil, after every `scanEvery` Zipf accesses a scan of
    ///     `scanLength` keys never seen before is inserted (default nil: no scans), the
    ///     pattern segmented LRU is built to survive.
    ///   - costRange: bounds of the log-uniform cost per key (default 64 KiB...4 MiB, a
    ///     thumbnail to a 1 MP RGBA image).
    public init(keyCount: Int, length: Int, exponent: Double = 0.9, seed: UInt64,
                scanEvery: Int? = nil, scanLength: Int = 100,
                costRange: ClosedRange<Int> = (64 << 10)...(4 << 20)) {
        precondition(keyCount > 0 && length >= 0)
        self.keyCount = keyCount
        self.exponent = exponent
        self.seed = seed
        var random = SeededGenerator(seed: seed)
        var cumulative: [Double] = []
        cumulative.reserveCapacity(keyCount)
        var total = 0.0
        for rank in 1...keyCount {
            total += 1 / pow(Double(rank), exponent)
            cumulative.append(total)
        }
        var accesses: [Int] = []
        accesses.reserveCapacity(length)
        var nextScanKey = keyCount
        for index in 0..<length {
            let target = random.nextUnit() * total
            var low = 0, high = keyCount - 1
            while low < high {   // first rank whose cumulative weight reaches the target
                let mid = (low + high) / 2
                if cumulative[mid] < target { low = mid + 1 } else { high = mid }
            }
            accesses.append(low)
            if let scanEvery, (index + 1) % scanEvery == 0 {
                accesses += nextScanKey..<(nextScanKey + scanLength)
                nextScanKey += scanLength
            }
        }
        self.accesses = accesses
        let logLow = log(Double(costRange.lowerBound)), logHigh = log(Double(costRange.upperBound))
        costs = (0..<nextScanKey).map { _ in Int(exp(logLow + random.nextUnit() * (logHigh - logLow))) }
    }

    /// The total cost of every distinct key the trace touches: the working set.
    public var workingSetCost: Int {
        Set(accesses).reduce(0) { $0 + costs[$1] }
    }
}

extension SeededGenerator {
    /// Uniform in [0, 1), with 53 bits.
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
