import Foundation
import XCTest
@testable import Imago

/// Measures what the disk cache costs at a few directory sizes. Skipped unless
/// `IMAGO_MEASURE_DISK_CACHE=1` is set (it writes tens of thousands of files); prints a table.
final class DiskCacheCostTests: DiskCacheTestCase {
    func testMeasureCosts() throws {
        guard ProcessInfo.processInfo.environment["IMAGO_MEASURE_DISK_CACHE"] == "1" else {
            throw XCTSkip("set IMAGO_MEASURE_DISK_CACHE=1 to measure")
        }
        print("| entries | store+evict (fsync) | store+evict (no fsync) | store after another instance wrote | hit | full sweep | open |")
        print("|---|---|---|---|---|---|---|")
        for count in [1000, 5000, 10000] {
            try? FileManager.default.removeItem(at: cacheDirectory)
            let payload = bytes(4096, seed: 7)
            let probe = try makeCache(sizeLimit: 1 << 30)
            try probe.store(payload, forKey: "probe")
            let entrySize = probe.totalSize
            try probe.removeAll()
            let limit = entrySize * count + 100
            func cache(sync: Bool) throws -> DiskCache {
                let clock = self.clock!
                return try DiskCache(directory: cacheDirectory, configuration: .init(
                    sizeLimit: limit, synchronizesWrites: sync, now: { clock.now() }))
            }
            let fast = try cache(sync: false)
            for i in 0..<count { try fast.store(payload, forKey: "fill-\(i)") }
            XCTAssertLessThanOrEqual(fast.totalSize, limit)

            func mean(_ n: Int, _ body: (Int) throws -> Void) rethrows -> String {
                let start = ContinuousClock.now
                for i in 0..<n { try body(i) }
                let perOp = (ContinuousClock.now - start) / n
                return String(format: "%.3f ms", perOp.seconds * 1000)
            }
            let synced = try cache(sync: true)
            let storeSynced = try mean(100) { i in clock.advance(by: 1); try synced.store(payload, forKey: "s-\(i)") }
            let storeFast = try mean(300) { i in clock.advance(by: 1); try fast.store(payload, forKey: "f-\(i)") }
            let other = try cache(sync: false)
            let storeAlternating = try mean(100) { i in
                clock.advance(by: 1)
                try (i % 2 == 0 ? fast : other).store(payload, forKey: "a-\(i)")
            }
            let hit = mean(1000) { i in _ = fast.entry(forKey: "fill-\(count - 1 - i % 500)") }
            let sweep = try mean(3) { _ in try fast.sweep() }
            let open = try mean(3) { _ in _ = try cache(sync: false) }
            XCTAssertLessThanOrEqual(fast.totalSize, limit)
            print("| \(count) | \(storeSynced) | \(storeFast) | \(storeAlternating) | \(hit) | \(sweep) | \(open) |")
        }
    }
}
