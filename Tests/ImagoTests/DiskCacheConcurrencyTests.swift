import Foundation
import ImagoTestSupport
import Synchronization
import XCTest
@testable import Imago

/// DISK-2 and DISK-4 under concurrency: many threads, several cache instances on one directory
/// (each with its own lock file descriptor, as separate processes have), and a child process.
final class DiskCacheConcurrencyTests: DiskCacheTestCase {
    /// A payload that names its writer in its first bytes, so any complete copy can be checked.
    static func payload(tag: String) -> Data {
        var data = Data(tag.utf8) + Data([0])
        let length = 2000 + abs(tag.hashValueStable) % 3000
        var state = UInt32(truncatingIfNeeded: tag.hashValueStable)
        while data.count < length {
            state = state &* 1_664_525 &+ 1_013_904_223
            data.append(UInt8(truncatingIfNeeded: state >> 24))
        }
        return data
    }

    /// Whether `data` is exactly one writer's complete payload (never a mix or a prefix).
    static func isCompletePayload(_ data: Data) -> Bool {
        guard let end = data.firstIndex(of: 0) else { return false }
        return data == payload(tag: String(decoding: data[..<end], as: UTF8.self))
    }

    func testConcurrentWritersOfOneKeyLeaveOneCompleteEntry() throws {
        let caches = [try makeCache(sizeLimit: 64 << 20), try makeCache(sizeLimit: 64 << 20)]
        let failures = Mutex([String]())
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            let cache = caches[worker % 2]
            for round in 0..<25 {
                let tag = "w\(worker)-r\(round)"
                do {
                    let stored = try cache.store(Self.payload(tag: tag), forKey: "same", metadata: .init(etag: tag))
                    if !stored { failures.withLock { $0.append("refused \(tag)") } }
                } catch {
                    failures.withLock { $0.append("store \(tag): \(error)") }
                }
                if let entry = cache.entry(forKey: "same"), let data = try? entry.data(), !Self.isCompletePayload(data) {
                    failures.withLock { $0.append("read a mixed or partial payload") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        try assertOneCompleteEntry(forKey: "same", cache: caches[0])
    }

    func testSeveralInstancesKeepTheSizeLimit() throws {
        let limit = 40_000
        let caches = (0..<3).map { _ in try! makeCache(sizeLimit: limit) }
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            for i in 0..<30 {
                _ = try? caches[worker % 3].store(Self.payload(tag: "w\(worker)-\(i)"), forKey: "w\(worker)-\(i)")
            }
        }
        XCTAssertLessThanOrEqual(try directorySize(), limit)
        for cache in caches { XCTAssertEqual(cache.totalSize, try directorySize()) }
        XCTAssertEqual(try listing().filter { $0.hasPrefix(".tmp-") }, [])
    }

    func testWritersInAChildProcessAndThisOne() throws {
        let child = try ChildTestProcess(test: "ImagoTests.DiskCacheConcurrencyTests/testChildProcessWriter",
                                         environment: ["IMAGO_DISK_CACHE_CHILD_DIR": cacheDirectory.path])
        let cache = try makeCache(sizeLimit: 60_000, realClock: true)
        try child.run()
        for round in 0..<60 {
            try cache.store(Self.payload(tag: "parent-\(round)"), forKey: "same", metadata: .init(etag: "parent-\(round)"))
            try cache.store(Self.payload(tag: "parent-key-\(round)"), forKey: "parent-key-\(round)")
        }
        let (status, _, report) = child.finish()
        XCTAssertEqual(status, 0, report)
        XCTAssertTrue(report.contains("Executed 1 test, with 0 failures"), "the child ran its writer: \(report)")
        XCTAssertLessThanOrEqual(try directorySize(), 60_000)
        XCTAssertEqual(cache.totalSize, try directorySize())
        try assertOneCompleteEntry(forKey: "same", cache: cache)
    }

    /// The child side of `testWritersInAChildProcessAndThisOne`; does nothing in a normal run.
    func testChildProcessWriter() throws {
        guard let path = ProcessInfo.processInfo.environment["IMAGO_DISK_CACHE_CHILD_DIR"] else { return }
        let cache = try DiskCache(directory: URL(fileURLWithPath: path),
                                  configuration: .init(sizeLimit: 60_000))
        for round in 0..<60 {
            try cache.store(Self.payload(tag: "child-\(round)"), forKey: "same", metadata: .init(etag: "child-\(round)"))
            try cache.store(Self.payload(tag: "child-key-\(round)"), forKey: "child-key-\(round)")
        }
    }

    private func assertOneCompleteEntry(forKey key: String, cache: DiskCache,
                                        file: StaticString = #filePath, line: UInt = #line) throws {
        let hash = DiskCacheNaming.hash(forKey: key)
        XCTAssertEqual(try listing().filter { $0.hasPrefix(hash) }, [hash, hash + ".meta"], file: file, line: line)
        XCTAssertEqual(try listing().filter { $0.hasPrefix(".tmp-") }, [], file: file, line: line)
        let entry = try XCTUnwrap(cache.entry(forKey: key), file: file, line: line)
        let data = try entry.data()
        XCTAssertTrue(Self.isCompletePayload(data), file: file, line: line)
        XCTAssertEqual(data, Self.payload(tag: try XCTUnwrap(entry.metadata.etag)), "validators match the bytes",
                       file: file, line: line)
        XCTAssertEqual(entry.byteCount, data.count, file: file, line: line)
    }
}

private extension String {
    /// FNV-1a: `hashValue` is seeded per process, and the child must agree with the parent.
    var hashValueStable: Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash >> 1)
    }
}
