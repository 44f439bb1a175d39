import Foundation
import Testing
@testable import Imago

/// The disk cache on a nearly full file system: a store whose sidecar takes the last free block
/// still publishes its entry and says so. (Before the lock file kept its generation bytes from
/// the start, bumping the generation after the renames needed a block of its own: the store
/// then threw for an entry it had published, and the download it had moved in was lost.)
@Suite struct FullDiskStoreTests {
    @Test(.enabled(if: BrokenCacheDirectory.canMount, Comment(rawValue: BrokenCacheDirectory.mountingNotAllowed)))
    func aStoreThatTakesTheLastBlockPublishesItsEntry() throws {
        let directory = try BrokenCacheDirectory(.noSpace)
        defer { directory.tearDown() }
        let cache = try DiskCache(directory: directory.cache)
        // A finished download on the same file system (so the store is a rename, needing no block).
        let download = cache.makeTemporaryFileURL()
        let body = Data(repeating: 0xA5, count: 8192)
        try body.write(to: download)
        try Self.fillLeavingOneBlock(directory.cache.appendingPathComponent("filler"))

        #expect(try cache.store(fileAt: download, forKey: "last-block", metadata: DiskCache.Metadata()))
        let entry = try #require(cache.entry(forKey: "last-block"))
        #expect(try entry.data() == body)
        #expect(!FileManager.default.fileExists(atPath: download.path), "the download was moved in")
    }

    /// Writes `file` until the file system is full, then frees one block (4 KiB) of it.
    private static func fillLeavingOneBlock(_ file: URL) throws {
        let fd = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 4096)
        var size = 0
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == 4096 { size += 4096 }
        try #require(errno == ENOSPC, "filled until ENOSPC, got errno \(errno)")
        try #require(size >= 4096 && ftruncate(fd, off_t(size - 4096)) == 0)
    }
}
