import ImagoCorpus
import Imago
import XCTest
@testable import ImagoBench

final class ZipfTraceTests: XCTestCase {
    func testSameSeedSameTraceDifferentSeedDifferentTrace() {
        let a = ZipfTrace(keyCount: 500, length: 5000, seed: 42)
        XCTAssertEqual(a, ZipfTrace(keyCount: 500, length: 5000, seed: 42))
        XCTAssertNotEqual(a.accesses, ZipfTrace(keyCount: 500, length: 5000, seed: 43).accesses)
    }

    func testKnownPrefixPinsTheGeneratorAcrossPlatforms() {
        var generator = SeededGenerator(seed: 0)
        XCTAssertEqual(generator.next(), 0xE220_A839_7B1D_CDAF)
        XCTAssertEqual(generator.next(), 0x6E78_9E6A_A1B9_65F4)
    }

    func testPopularityIsSkewedTowardsLowRanks() {
        let trace = ZipfTrace(keyCount: 1000, length: 20000, exponent: 1.0, seed: 1)
        let top = trace.accesses.filter { $0 < 10 }.count
        let tail = trace.accesses.filter { $0 >= 990 }.count
        XCTAssertGreaterThan(top, 10 * max(tail, 1))
        XCTAssertTrue(trace.accesses.allSatisfy { (0..<1000).contains($0) })
    }

    func testScansAddNeverSeenKeys() {
        let trace = ZipfTrace(keyCount: 100, length: 1000, seed: 3, scanEvery: 100, scanLength: 10)
        XCTAssertEqual(trace.accesses.count, 1000 + 10 * 10)
        XCTAssertEqual(trace.accesses.filter { $0 >= 100 }.count, 100)
        XCTAssertEqual(Set(trace.accesses.filter { $0 >= 100 }).count, 100)
        XCTAssertEqual(trace.costs.count, 200)
    }

    func testCostsStayInRange() {
        let trace = ZipfTrace(keyCount: 300, length: 100, seed: 9, costRange: 1000...2000)
        XCTAssertTrue(trace.costs.allSatisfy { (1000...2000).contains($0) })
    }

    func testHitRatioIsDeterministicAndBounded() {
        let trace = ZipfTrace(keyCount: 500, length: 5000, seed: 5)
        let lru = HitRatioSimulation.hitRatio(trace, policy: .lru)
        XCTAssertEqual(lru, HitRatioSimulation.hitRatio(trace, policy: .lru))
        XCTAssertTrue((0...1).contains(lru))
        XCTAssertGreaterThan(lru, 0)
        XCTAssertEqual(HitRatioSimulation.hitRatio(trace, policy: .lru, costFraction: 0), 0)
    }
}
