import ImagoCorpus
import XCTest
@testable import Imago

/// Seeded randomized tests: `MemoryCache(.lru)` must behave exactly like a naive reference LRU,
/// and `.segmentedLRU` must keep MEM-1..3 while beating LRU's hit ratio on skewed traces.
final class MemoryCacheModelTests: XCTestCase {
    /// The obviously correct O(n) LRU: an array ordered from least to most recently used.
    private struct ReferenceLRU {
        let costLimit: Int, countLimit: Int, entryCostLimit: Int
        var entries: [(key: Int, value: Int, cost: Int)] = []
        var evictions = 0, hits = 0, misses = 0
        var totalCost: Int { entries.reduce(0) { $0 + $1.cost } }

        mutating func value(forKey key: Int) -> Int? {
            guard let i = entries.firstIndex(where: { $0.key == key }) else { misses += 1; return nil }
            hits += 1
            let entry = entries.remove(at: i)
            entries.append(entry)
            return entry.value
        }

        mutating func insert(_ value: Int, forKey key: Int, cost: Int) -> Bool {
            guard cost <= entryCostLimit else { return false }
            entries.removeAll { $0.key == key }
            entries.append((key, value, cost))
            while (totalCost > costLimit || entries.count > countLimit) && entries.count > 1 {
                entries.removeFirst()
                evictions += 1
            }
            return true
        }

        mutating func remove(_ key: Int) -> Int? {
            guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
            return entries.remove(at: i).value
        }

        mutating func trim(toCost cost: Int) {
            while totalCost > cost && !entries.isEmpty { entries.removeFirst(); evictions += 1 }
        }
    }

    func testLRUMatchesReferenceModel() {
        for seed in UInt64(1)...8 {
            var rng = SeededGenerator(seed: seed)
            let costLimit = 200 + Int(rng.next() % 800)
            let countLimit = 3 + Int(rng.next() % 30)
            let entryLimit = costLimit / 4
            let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: costLimit, countLimit: countLimit,
                                                                  entryCostLimit: entryLimit))
            var model = ReferenceLRU(costLimit: costLimit, countLimit: countLimit, entryCostLimit: entryLimit)
            for step in 0..<3000 {
                let key = Int(rng.next() % 60)
                switch rng.next() % 100 {
                case 0..<45:
                    let cost = Int(rng.next() % UInt64(entryLimit + 10))
                    XCTAssertEqual(cache.insert(step, forKey: key, cost: cost), model.insert(step, forKey: key, cost: cost))
                case 45..<90:
                    XCTAssertEqual(cache.value(forKey: key), model.value(forKey: key))
                case 90..<96:
                    XCTAssertEqual(cache.removeValue(forKey: key), model.remove(key))
                case 96..<99:
                    let target = Int(rng.next() % UInt64(costLimit))
                    cache.trim(toCost: target)
                    model.trim(toCost: target)
                default:
                    XCTAssertEqual(cache.contains(key), model.entries.contains { $0.key == key })
                }
                XCTAssertEqual(cache.keysInEvictionOrder(), model.entries.map(\.key), "seed \(seed) step \(step)")
                XCTAssertEqual(cache.totalCost, model.totalCost)
                XCTAssertLessThanOrEqual(cache.totalCost, costLimit)
                XCTAssertLessThanOrEqual(cache.count, countLimit)
                if cache.keysInEvictionOrder() != model.entries.map(\.key) { return }
            }
            XCTAssertEqual(cache.evictions, model.evictions)
            XCTAssertEqual(cache.hits, model.hits)
            XCTAssertEqual(cache.misses, model.misses)
        }
    }

    func testSegmentedLRUKeepsTheLimitsAndStaysConsistent() {
        var rng = SeededGenerator(seed: 42)
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 500, countLimit: 20,
                                                              entryCostLimit: 120, policy: .segmentedLRU))
        var present: [Int: Int] = [:]   // key -> cost, for entries we know are there
        for step in 0..<20000 {
            let key = Int(rng.next() % 80)
            switch rng.next() % 10 {
            case 0..<4:
                let cost = Int(rng.next() % 130)
                let evictionsBefore = cache.evictions, countBefore = cache.count, costBefore = cache.totalCost
                let inserted = cache.insert(key, forKey: key, cost: cost)
                XCTAssertEqual(inserted, cost <= 120)
                if inserted {
                    XCTAssertEqual(cache.value(forKey: key), key, "an accepted insert is present afterwards")
                } else {
                    XCTAssertEqual(cache.evictions, evictionsBefore)   // MEM-2: nothing evicted
                    XCTAssertEqual(cache.count, countBefore)
                    XCTAssertEqual(cache.totalCost, costBefore)
                }
                XCTAssertLessThanOrEqual(cache.totalCost, 500)
                XCTAssertLessThanOrEqual(cache.count, 20)
                if inserted { present[key] = cost }
            case 4..<8:
                if let value = cache.value(forKey: key) { XCTAssertEqual(value, key) }
            case 8:
                cache.removeValue(forKey: key)
            default:
                cache.trim(toCost: Int(rng.next() % 400))
            }
            if step % 97 == 0 {
                let keys = cache.keysInEvictionOrder()
                XCTAssertEqual(keys.count, cache.count)
                XCTAssertEqual(Set(keys).count, keys.count)
                XCTAssertEqual(keys.reduce(0) { $0 + present[$1]! }, cache.totalCost)
            }
        }
    }

    /// A Zipf(1.0)-popular working set interrupted by scans of one-off keys: the trace where
    /// plain LRU loses its hot entries to every scan and segmented LRU keeps them.
    func testSegmentedLRUBeatsLRUOnSkewedTraceWithScans() {
        func hitRatio(_ policy: MemoryCacheEvictionPolicy) -> Double {
            var rng = SeededGenerator(seed: 2024)
            let keys = 2000
            var cdf: [Double] = []
            var sum = 0.0
            for rank in 1...keys { sum += 1.0 / Double(rank); cdf.append(sum) }
            let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 200, countLimit: 200,
                                                                  entryCostLimit: 1, policy: policy))
            var nextScanKey = 1_000_000
            for op in 0..<100_000 {
                let key: Int
                if op % 1000 < 150 {   // a 150-key scan every 1000 requests
                    key = nextScanKey
                    nextScanKey += 1
                } else {
                    let u = Double(rng.next() >> 11) / Double(1 << 53) * sum
                    var lo = 0, hi = keys - 1
                    while lo < hi { let mid = (lo + hi) / 2; if cdf[mid] < u { lo = mid + 1 } else { hi = mid } }
                    key = lo
                }
                if cache.value(forKey: key) == nil { cache.insert(key, forKey: key, cost: 1) }
            }
            return Double(cache.hits) / Double(cache.hits + cache.misses)
        }
        let lru = hitRatio(.lru)
        let slru = hitRatio(.segmentedLRU)
        print("hit ratio on a Zipf trace with scans: LRU \(lru), segmented LRU \(slru)")
        XCTAssertGreaterThan(slru, lru + 0.01)
    }
}
