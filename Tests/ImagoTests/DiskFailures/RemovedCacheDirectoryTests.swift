import Foundation
import Testing
@testable import Imago

/// A cache directory removed under a running cache (`rm -rf` by a user, a cleaner, a test) is
/// made again at the next write, lock file included, so the cache goes on storing and two caches
/// on the directory keep excluding each other through the lock file both then use.
@Suite struct RemovedCacheDirectoryTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-removed-\(UUID().uuidString)")
    var directory: URL { root.appendingPathComponent("cache/images") }

    @Test func aStoreAfterTheDirectoryWasRemovedMakesItAgain() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = try DiskCache(directory: directory)
        #expect(try cache.store(Data(repeating: 1, count: 1000), forKey: "a"))
        try FileManager.default.removeItem(at: root)

        #expect(cache.entry(forKey: "a") == nil, "gone with its directory: a miss")
        #expect(try cache.store(Data(repeating: 2, count: 1000), forKey: "b"))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(".lock").path))
        #expect(try cache.entry(forKey: "b")?.data() == Data(repeating: 2, count: 1000))
        #expect(cache.totalSize > 1000, "the index was rebuilt from the new directory")
    }

    @Test func aHandedOutFileCanBeWrittenAfterTheDirectoryWasRemoved() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = try DiskCache(directory: directory)
        try FileManager.default.removeItem(at: directory)
        let file = cache.makeTemporaryFileURL()
        try Data(repeating: 3, count: 500).write(to: file)
        #expect(try cache.store(fileAt: file, forKey: "downloaded"))
        #expect(cache.entry(forKey: "downloaded")?.byteCount == 500)
    }

    @Test func twoCachesShareTheLockFileMadeAgain() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try DiskCache(directory: directory)
        let second = try DiskCache(directory: directory)
        try FileManager.default.removeItem(at: directory)
        #expect(try first.store(Data(repeating: 4, count: 800), forKey: "by-first"))
        #expect(try second.store(Data(repeating: 5, count: 800), forKey: "by-second"))
        // Each sees the other's entry: they mirror one directory through one generation count.
        #expect(first.entry(forKey: "by-second")?.byteCount == 800)
        #expect(second.entry(forKey: "by-first")?.byteCount == 800)
        try first.removeEntry(forKey: "by-second")
        #expect(second.entry(forKey: "by-second") == nil)
    }

    @Test func aFileWhereTheDirectoryWasFailsTheStoreWithATypedError() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = try DiskCache(directory: directory)
        try FileManager.default.removeItem(at: directory)
        try Data("in the way".utf8).write(to: directory)
        #expect(throws: DiskCacheError.self) { try cache.store(Data(repeating: 6, count: 100), forKey: "c") }
    }
}
