import Foundation
import ImagoBench
import XCTest
@testable import Imago

final class DiskCacheTests: DiskCacheTestCase {
    func testDefaultsAreStated() {
        let configuration = DiskCache.Configuration()
        XCTAssertEqual(configuration.sizeLimit, 256 << 20)
        XCTAssertEqual(configuration.temporaryFileGracePeriod, .seconds(600))
        XCTAssertEqual(configuration.sweepInterval, .seconds(3600))
        XCTAssertTrue(configuration.synchronizesWrites)
    }

    func testStoredEntryRoundTripsBytesAndMetadata() throws {
        let cache = try makeCache()
        let payload = bytes(5000, seed: 1)
        let metadata = DiskCache.Metadata(etag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        XCTAssertTrue(try cache.store(payload, forKey: "https://example.com/a.jpg?w=100", metadata: metadata))
        let entry = try XCTUnwrap(cache.entry(forKey: "https://example.com/a.jpg?w=100"))
        XCTAssertEqual(entry.byteCount, 5000)
        XCTAssertEqual(entry.metadata, metadata)
        XCTAssertEqual(entry.storedAt, clock.now())
        XCTAssertEqual(try entry.data(), payload)
        XCTAssertEqual(try Data(contentsOf: entry.url), payload, "url is a plain file of exactly the bytes")
        XCTAssertNil(cache.entry(forKey: "https://example.com/a.jpg?w=200"))
    }

    func testFileNamesAreFixedLengthHashesOfTheFullKey() throws {
        XCTAssertEqual(DiskCacheNaming.hash(forKey: "abc"),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let cache = try makeCache()
        let longKey = String(repeating: "very/long/key/", count: 1000)
        try cache.store(bytes(10, seed: 0), forKey: longKey)
        try cache.store(bytes(10, seed: 1), forKey: "k")
        try cache.store(bytes(12, seed: 2), forKey: "k")   // the same key: the same file
        let names = try listing()
        XCTAssertEqual(names.count, 4)
        for name in names {
            let hash = name.hasSuffix(".meta") ? String(name.dropLast(5)) : name
            XCTAssertEqual(hash.count, 64)
            XCTAssertTrue(hash.allSatisfy { "0123456789abcdef".contains($0) })
        }
        XCTAssertTrue(names.contains(DiskCacheNaming.hash(forKey: longKey)))
        XCTAssertEqual(try cache.entry(forKey: "k")?.data(), bytes(12, seed: 2))
    }

    func testSizeLimitHoldsAfterEveryWriteAndEvictsLeastRecentlyAccessed() throws {
        let cache = try makeCache(sizeLimit: 12_000)
        var stored: [String] = []
        for i in 0..<40 {
            clock.advance(by: 1)
            XCTAssertTrue(try cache.store(bytes(1000, seed: UInt8(i)), forKey: "key-\(i)"))
            stored.append("key-\(i)")
            XCTAssertLessThanOrEqual(try directorySize(), 12_000, "after write \(i)")
            XCTAssertEqual(cache.totalSize, try directorySize())
            clock.advance(by: 1)
            XCTAssertNotNil(cache.entry(forKey: "key-0"))   // reading key-0 keeps protecting it
        }
        XCTAssertNotNil(cache.entry(forKey: "key-0"), "recently read entries survive")
        XCTAssertNotNil(cache.entry(forKey: "key-39"), "the entry just written is never evicted")
        XCTAssertNil(cache.entry(forKey: "key-1"))
        // Survivors are the most recently accessed: key-0 and the newest stores.
        let present = stored.filter { cache.entry(forKey: $0) != nil }
        XCTAssertEqual(present.first, "key-0")
        let newest = present.dropFirst().map { Int($0.dropFirst(4))! }
        XCTAssertEqual(newest, Array((40 - newest.count)..<40))
    }

    func testEntryLargerThanTheLimitIsNotStoredAndEvictsNothing() throws {
        let cache = try makeCache(sizeLimit: 5000)
        XCTAssertTrue(try cache.store(bytes(1000, seed: 1), forKey: "small"))
        let before = try listing()
        XCTAssertFalse(try cache.store(bytes(6000, seed: 2), forKey: "huge"))
        XCTAssertFalse(try cache.store(bytes(5000, seed: 2), forKey: "exactly-the-limit-plus-sidecar"))
        XCTAssertEqual(try listing(), before)
        XCTAssertNotNil(cache.entry(forKey: "small"))

        let source = root.appendingPathComponent("download.bin")
        try bytes(6000, seed: 3).write(to: source)
        XCTAssertFalse(try cache.store(fileAt: source, forKey: "huge-file"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: source.path), "a refused file stays the caller's")
    }

    func testRefreshAfterRevalidationRestampsTheEntryAndKeepsItsBytes() throws {
        let cache = try makeCache()
        try cache.store(bytes(100, seed: 1), forKey: "k", metadata: .init(etag: "v1"))
        clock.advance(by: 61)
        let stale = try XCTUnwrap(cache.entry(forKey: "k"))
        XCTAssertEqual(stale.metadata.etag, "v1")

        let refreshed = DiskCache.Metadata(etag: "v2", lastModified: "yesterday", responseHeaders: ["cache-control": "max-age=60"],
                                           varyingRequestHeaders: ["accept-encoding": "identity"],
                                           requestedAt: clock.now() - 1, receivedAt: clock.now())
        XCTAssertTrue(try cache.refresh(forKey: "k", metadata: refreshed))
        let fresh = try XCTUnwrap(cache.entry(forKey: "k"))
        XCTAssertEqual(fresh.storedAt, clock.now())
        XCTAssertEqual(fresh.metadata, refreshed, "every field of the metadata survives the sidecar")
        XCTAssertEqual(try fresh.data(), bytes(100, seed: 1))
        XCTAssertFalse(try cache.refresh(forKey: "absent", metadata: .init()))
        XCTAssertEqual(cache.totalSize, try directorySize())
    }

    func testMetadataSurvivesReopeningTheCache() throws {
        let metadata = DiskCache.Metadata(etag: "\"e\"", responseHeaders: ["cache-control": "max-age=5", "date": "Sun, 06 Nov 1994 08:49:37 GMT"],
                                          requestedAt: Date(timeIntervalSince1970: 100), receivedAt: Date(timeIntervalSince1970: 101.5))
        try makeCache().store(bytes(10, seed: 1), forKey: "k", metadata: metadata)
        XCTAssertEqual(try makeCache().entry(forKey: "k")?.metadata, metadata)
    }

    func testSidecarsWrittenBeforeTheHTTPFieldsStillRead() throws {
        let old = #"{"byteCount":3,"etag":"\"x\"","key":"k","payloadInode":1,"storedAt":5,"version":1}"#
        let sidecar = try XCTUnwrap(DiskCacheSidecar.decode(Data(old.utf8)))
        XCTAssertEqual(sidecar.metadata, DiskCache.Metadata(etag: "\"x\""))
    }

    func testStoreFileAtMovesTheFile() throws {
        let cache = try makeCache()
        let source = root.appendingPathComponent("download.tmp")
        try bytes(70_000, seed: 9).write(to: source)
        XCTAssertTrue(try cache.store(fileAt: source, forKey: "k", metadata: .init(etag: "e")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: source.path))
        let entry = try XCTUnwrap(cache.entry(forKey: "k"))
        XCTAssertEqual(try entry.data(), bytes(70_000, seed: 9))
        XCTAssertEqual(entry.metadata.etag, "e")
        XCTAssertEqual(try listing().filter { $0.hasPrefix(".tmp-") }, [])
    }

    func testStoreFileAtAcrossFileSystemsCopiesInChunks() throws {
        let shm = URL(fileURLWithPath: "/dev/shm")
        guard FileManager.default.isWritableFile(atPath: shm.path) else { throw XCTSkip("no /dev/shm") }
        let cache = try makeCache(sizeLimit: 256 << 20)
        let source = shm.appendingPathComponent("imago-download-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: source) }
        let size = 50 << 20
        let handle = try { () throws -> FileHandle in
            _ = FileManager.default.createFile(atPath: source.path, contents: nil)
            return try FileHandle(forWritingTo: source)
        }()
        let chunk = bytes(1 << 20, seed: 4)
        for _ in 0..<(size >> 20) { try handle.write(contentsOf: chunk) }
        try handle.close()

        ProcessMemory.resetPeak()
        let before = ProcessMemory.peakResidentBytes() ?? 0
        XCTAssertTrue(try cache.store(fileAt: source, forKey: "big"))
        let growth = (ProcessMemory.peakResidentBytes() ?? 0) - before
        print("peak RSS growth while storing a 50 MiB file across file systems: \(growth >> 10) KiB")
        XCTAssertFalse(FileManager.default.fileExists(atPath: source.path))
        let entry = try XCTUnwrap(cache.entry(forKey: "big"))
        XCTAssertEqual(entry.byteCount, size)
        if before > 0 { XCTAssertLessThan(growth, 20 << 20, "the file was not read whole into memory") }
    }

    func testRemoveEntryAndRemoveAll() throws {
        let cache = try makeCache()
        try cache.store(bytes(100, seed: 1), forKey: "a")
        try cache.store(bytes(200, seed: 2), forKey: "b")
        try cache.removeEntry(forKey: "a")
        XCTAssertNil(cache.entry(forKey: "a"))
        XCTAssertNotNil(cache.entry(forKey: "b"))
        try cache.removeEntry(forKey: "never-stored")
        XCTAssertEqual(cache.totalSize, try directorySize())
        try cache.removeAll()
        XCTAssertNil(cache.entry(forKey: "b"))
        XCTAssertEqual(cache.totalSize, 0)
        XCTAssertEqual(try listing(), [])
        XCTAssertTrue(try cache.store(bytes(10, seed: 3), forKey: "c"))
        XCTAssertNotNil(cache.entry(forKey: "c"))
    }
}
