import ImagoCorpus
import XCTest
@testable import Imago

final class MemoryCacheTests: XCTestCase {
    private func cache(cost: Int = 100, count: Int = 100, entry: Int? = nil,
                       policy: MemoryCacheEvictionPolicy = .lru) -> MemoryCache<String, Int> {
        MemoryCache(configuration: .init(costLimit: cost, countLimit: count, entryCostLimit: entry, policy: policy))
    }

    func testDefaultsAreStated() {
        let configuration = MemoryCache<String, Int>.Configuration()
        let physical = Int(ProcessInfo.processInfo.physicalMemory)
        XCTAssertEqual(configuration.costLimit, min(physical / 10, 512 << 20))
        XCTAssertEqual(configuration.countLimit, 1000)
        XCTAssertEqual(configuration.entryCostLimit, configuration.costLimit / 4)
        XCTAssertEqual(configuration.policy, .lru)
    }

    func testReadRefreshesRecency() {
        let cache = cache(cost: 30, entry: 10)
        cache.insert(1, forKey: "a", cost: 10)
        cache.insert(2, forKey: "b", cost: 10)
        cache.insert(3, forKey: "c", cost: 10)
        XCTAssertEqual(cache.value(forKey: "a"), 1)          // a is now the most recent
        XCTAssertEqual(cache.keysInEvictionOrder(), ["b", "c", "a"])
        cache.insert(4, forKey: "d", cost: 10)
        XCTAssertFalse(cache.contains("b"))
        XCTAssertEqual(cache.keysInEvictionOrder(), ["c", "a", "d"])
        XCTAssertEqual(cache.evictions, 1)
    }

    func testContainsDoesNotRefreshRecency() {
        let cache = cache(cost: 20, entry: 10)
        cache.insert(1, forKey: "a", cost: 10)
        cache.insert(2, forKey: "b", cost: 10)
        XCTAssertTrue(cache.contains("a"))
        cache.insert(3, forKey: "c", cost: 10)
        XCTAssertFalse(cache.contains("a"))
        XCTAssertEqual(cache.hits + cache.misses, 0)
    }

    func testLimitsHoldAfterEveryInsert() {
        let cache = cache(cost: 1000, count: 7, entry: 250)
        var rng = SeededGenerator(seed: 7)
        for i in 0..<2000 {
            XCTAssertTrue(cache.insert(i, forKey: "k\(rng.next() % 40)", cost: Int(rng.next() % 251)))
            XCTAssertLessThanOrEqual(cache.totalCost, 1000)
            XCTAssertLessThanOrEqual(cache.count, 7)
        }
    }

    func testCostIsNotAnEvictionCriterion() {
        // A cost-ordered purge would drop the big entry; LRU drops the oldest small one.
        let cache = cache(cost: 100, entry: 50)
        cache.insert(1, forKey: "small-old", cost: 10)
        cache.insert(2, forKey: "big", cost: 50)
        cache.insert(3, forKey: "small", cost: 30)
        cache.insert(4, forKey: "new", cost: 20)
        XCTAssertEqual(Set(cache.keysInEvictionOrder()), ["big", "small", "new"])
        XCTAssertEqual(cache.totalCost, 100)
    }

    func testOversizeEntryIsRejectedWithoutEvicting() {
        let cache = cache(cost: 100, entry: 25)
        cache.insert(1, forKey: "a", cost: 25)
        cache.insert(2, forKey: "b", cost: 25)
        XCTAssertFalse(cache.insert(3, forKey: "huge", cost: 26))
        XCTAssertFalse(cache.contains("huge"))
        XCTAssertEqual(cache.count, 2)
        XCTAssertEqual(cache.totalCost, 50)
        XCTAssertEqual(cache.evictions, 0)
        // Replacing an existing key with an oversize value leaves the old value.
        XCTAssertFalse(cache.insert(9, forKey: "a", cost: 99))
        XCTAssertEqual(cache.value(forKey: "a"), 1)
        XCTAssertEqual(cache.totalCost, 50)
    }

    func testEntryCostLimitDefaultsToAQuarterAndIsClamped() {
        XCTAssertEqual(MemoryCache<String, Int>.Configuration(costLimit: 100).entryCostLimit, 25)
        XCTAssertEqual(MemoryCache<String, Int>.Configuration(costLimit: 100, entryCostLimit: 500).entryCostLimit, 100)
    }

    func testReplacementUpdatesCostAndValue() {
        let cache = cache(cost: 100, entry: 70)
        cache.insert(1, forKey: "a", cost: 10)
        cache.insert(2, forKey: "b", cost: 10)
        cache.insert(3, forKey: "a", cost: 40)
        XCTAssertEqual(cache.totalCost, 50)
        XCTAssertEqual(cache.count, 2)
        XCTAssertEqual(cache.keysInEvictionOrder(), ["b", "a"])   // replacement is a use
        cache.insert(4, forKey: "a", cost: 5)
        XCTAssertEqual(cache.totalCost, 15)
        // Growing an entry evicts others, never the entry itself.
        cache.insert(5, forKey: "c", cost: 30)
        cache.insert(6, forKey: "a", cost: 65)   // 10 + 65 + 30 > 100: b (least recent) goes
        XCTAssertEqual(cache.value(forKey: "a"), 6)
        XCTAssertEqual(cache.totalCost, 95)
        XCTAssertFalse(cache.contains("b"))
    }

    func testTrimEvictsLeastRecentlyUsedFirstAndStaysConsistent() {
        let cache = cache(cost: 100, entry: 25)
        for (i, key) in ["a", "b", "c", "d", "e"].enumerated() { cache.insert(i, forKey: key, cost: 10 + i) }
        _ = cache.value(forKey: "a")
        cache.trim(toCost: 40)  // a=10 b=11 c=12 d=13 e=14, total 60: drop b, then c
        XCTAssertEqual(cache.keysInEvictionOrder(), ["d", "e", "a"])
        XCTAssertEqual(cache.totalCost, 37)
        XCTAssertEqual(cache.evictions, 2)
        cache.insert(7, forKey: "f", cost: 20)
        XCTAssertEqual(cache.totalCost, 57)
        XCTAssertEqual(cache.value(forKey: "f"), 7)
        cache.trim(toCost: 0)
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.totalCost, 0)
        cache.insert(8, forKey: "g", cost: 1)   // slots are reused after a trim
        XCTAssertEqual(cache.keysInEvictionOrder(), ["g"])
    }

    func testRemoveAndRemoveAll() {
        let cache = cache()
        cache.insert(1, forKey: "a", cost: 5)
        cache.insert(2, forKey: "b", cost: 7)
        XCTAssertEqual(cache.removeValue(forKey: "a"), 1)
        XCTAssertNil(cache.removeValue(forKey: "a"))
        XCTAssertEqual(cache.totalCost, 7)
        cache.removeAll()
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.totalCost, 0)
        XCTAssertNil(cache.value(forKey: "b"))
        XCTAssertEqual(cache.evictions, 0)
        cache.insert(3, forKey: "c", cost: 1)
        XCTAssertEqual(cache.value(forKey: "c"), 3)
    }

    func testHitAndMissCounters() {
        let cache = cache()
        cache.insert(1, forKey: "a", cost: 1)
        _ = cache.value(forKey: "a")
        _ = cache.value(forKey: "a")
        _ = cache.value(forKey: "zz")
        XCTAssertEqual(cache.hits, 2)
        XCTAssertEqual(cache.misses, 1)
    }

    func testPixelBufferCostIsDecodedSize() {
        let pixels = PixelBuffer(width: 3, height: 2, rgba: [UInt8](repeating: 0, count: 24))
        XCTAssertEqual(ImageCost.of(pixels), pixels.bytesPerRow * pixels.height)
        let cache = MemoryCache<String, PixelBuffer>(configuration: .init(costLimit: 1000))
        XCTAssertTrue(cache.insert(pixels, forKey: "p"))
        XCTAssertEqual(cache.totalCost, 24)
    }

    func testConcurrentUseKeepsTotalCostConsistent() async {
        for policy in [MemoryCacheEvictionPolicy.lru, .segmentedLRU] {
            let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 5000, countLimit: 300,
                                                                  entryCostLimit: 200, policy: policy))
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        var rng = SeededGenerator(seed: UInt64(worker))
                        for _ in 0..<3000 {
                            let key = Int(rng.next() % 500)
                            switch rng.next() % 10 {
                            case 0: cache.removeValue(forKey: key)
                            case 1...4: cache.insert(key, forKey: key, cost: key % 150 + 1)
                            case 5: cache.trim(toCost: 4000)
                            default: if let value = cache.value(forKey: key) { XCTAssertEqual(value, key) }
                            }
                        }
                    }
                }
            }
            let present = (0..<500).filter(cache.contains)
            XCTAssertEqual(present.reduce(0) { $0 + $1 % 150 + 1 }, cache.totalCost)
            XCTAssertEqual(present.count, cache.count)
            XCTAssertLessThanOrEqual(cache.totalCost, 5000)
            XCTAssertEqual(Set(cache.keysInEvictionOrder()), Set(present))
        }
    }
}
