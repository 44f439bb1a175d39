import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import Imago

/// DISK-1: leftovers of a crash mid-write are never served, and are found and removed.
final class DiskCacheCrashTests: DiskCacheTestCase {
    private func setModificationDate(_ date: Date, of path: String) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
    }

    func testCrashLeftoversAreNotServedAndAreRemovedOnOpen() throws {
        do {
            let cache = try makeCache()
            for key in ["good", "truncated", "orphan", "swapped", "no-sidecar", "garbled"] {
                try cache.store(bytes(4000, seed: UInt8(key.count)), forKey: key, metadata: .init(etag: key))
            }
        }
        let fm = FileManager.default
        // A payload cut short after publication (size disagrees with its sidecar).
        let truncated = try FileHandle(forWritingTo: URL(fileURLWithPath: payloadPath(forKey: "truncated")))
        try truncated.truncate(atOffset: 1234)
        try truncated.close()
        // A sidecar whose payload never arrived.
        try fm.removeItem(atPath: payloadPath(forKey: "orphan"))
        // An old payload left beside a newer sidecar (same size, another file).
        let impostor = cacheDirectory.appendingPathComponent("impostor")
        try bytes(4000, seed: 99).write(to: impostor)
        _ = rename(impostor.path, payloadPath(forKey: "swapped"))
        // A payload without its sidecar, and a sidecar that is not valid JSON.
        try fm.removeItem(atPath: payloadPath(forKey: "no-sidecar") + ".meta")
        try Data("{\"vers".utf8).write(to: URL(fileURLWithPath: payloadPath(forKey: "garbled") + ".meta"))
        // A partial write from a crashed process, and one from a live process (inside the grace period).
        let crashed = cacheDirectory.appendingPathComponent(".tmp-crashed").path
        let inFlight = cacheDirectory.appendingPathComponent(".tmp-in-flight").path
        try bytes(777, seed: 1).write(to: URL(fileURLWithPath: crashed))
        try bytes(777, seed: 2).write(to: URL(fileURLWithPath: inFlight))
        try setModificationDate(clock.now().addingTimeInterval(-3600), of: crashed)
        try setModificationDate(clock.now().addingTimeInterval(-60), of: inFlight)

        let cache = try makeCache()
        let good = DiskCacheNaming.hash(forKey: "good")
        XCTAssertEqual(try listing(), [".tmp-in-flight", good, good + ".meta"])
        XCTAssertEqual(try cache.entry(forKey: "good")?.data(), bytes(4000, seed: 4))
        for key in ["truncated", "orphan", "swapped", "no-sidecar", "garbled"] {
            XCTAssertNil(cache.entry(forKey: key), key)
        }
        XCTAssertEqual(cache.totalSize, try directorySize())

        clock.advance(by: 600)   // the in-flight write's owner is now presumed dead
        try cache.sweep()
        XCTAssertEqual(try listing(), [good, good + ".meta"])
    }

    func testCorruptionFoundOnReadIsAMissAndIsRemoved() throws {
        let cache = try makeCache()
        try cache.store(bytes(3000, seed: 1), forKey: "k")
        try cache.store(bytes(3000, seed: 2), forKey: "other")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: payloadPath(forKey: "k")))
        try handle.truncate(atOffset: 100)
        try handle.close()
        XCTAssertNil(cache.entry(forKey: "k"))
        XCTAssertFalse(try listing().contains { $0.hasPrefix(DiskCacheNaming.hash(forKey: "k")) })
        XCTAssertEqual(cache.totalSize, try directorySize())
        XCTAssertNotNil(cache.entry(forKey: "other"))
        // The pipeline re-fetches and stores again (CACHE-4).
        XCTAssertTrue(try cache.store(bytes(3000, seed: 3), forKey: "k"))
        XCTAssertEqual(try cache.entry(forKey: "k")?.data(), bytes(3000, seed: 3))
    }

    func testRemoveEntryAfterDecodeFailure() throws {
        let cache = try makeCache()
        try cache.store(Data("not an image".utf8), forKey: "k")
        try cache.removeEntry(forKey: "k")
        XCTAssertNil(cache.entry(forKey: "k"))
        XCTAssertEqual(try listing(), [])
    }

    func testTemporaryFilesAreNeverServed() throws {
        let cache = try makeCache()
        // A temp file that happens to hold a complete copy of someone's payload is still not an entry.
        try bytes(100, seed: 1).write(to: cacheDirectory.appendingPathComponent(".tmp-\(UUID().uuidString)"))
        XCTAssertNil(cache.entry(forKey: "k"))
        XCTAssertEqual(cache.totalSize, 0)
    }
}
