import Foundation
import Testing
@testable import Imago

/// The page cache a cgroup is charged for, which the decode stage leaves out of its usage: a
/// disk cache's files fill a cgroup's usage up to its limit, and the kernel reclaims them before
/// it kills (seen here: a 300 MB file read in a 256 MiB cgroup left its usage at 254 MiB, 253 of
/// them page cache).
@Suite struct CgroupFileCacheTests {
    /// A fake root with `memory.stat` (and the usage file) in `directory`.
    private func root(version: Int, stat: String, usage: Int) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cgroup-stat-\(UUID().uuidString)").path
        let directory = root + "/sys/fs/cgroup/app"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try stat.write(toFile: directory + "/memory.stat", atomically: true, encoding: .utf8)
        try "\(usage)\n".write(toFile: directory + (version == 2 ? "/memory.current" : "/memory.usage_in_bytes"),
                               atomically: true, encoding: .utf8)
        return root
    }

    private func limit(version: Int) -> MemoryLimit {
        MemoryLimit(bytes: 256 << 20, highBytes: nil, physicalBytes: 24 << 30, source: version == 2 ? .cgroupV2 : .cgroupV1,
                    cgroupDirectory: "/sys/fs/cgroup/app", cgroupVersion: version, explanation: "test")
    }

    @Test func version1CountsTheHierarchicalFileListsOnly() throws {
        // The cgroup's own lists (no total_ prefix) leave out its descendants; cache counts
        // shared memory too, which the kernel cannot drop.
        let stat = "cache 300\nrss 50\nactive_file 7\ninactive_file 9\ntotal_cache 300\ntotal_rss 50\ntotal_active_file 100\ntotal_inactive_file 150\n"
        let root = try root(version: 1, stat: stat, usage: 1_000)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(CgroupLimitReader.fileCache(root: root, directory: "/sys/fs/cgroup/app", version: 1) == 250)
        #expect(limit(version: 1).usageBesidesPageCacheBytes(root: root) == 750)
    }

    @Test func version2CountsTheFileLists() throws {
        let stat = "anon 500\nfile 400\nshmem 20\nactive_file 120\ninactive_file 260\nslab 9\n"
        let root = try root(version: 2, stat: stat, usage: 1_000)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(limit(version: 2).usageBesidesPageCacheBytes(root: root) == 620)
    }

    @Test func anUnreadableStatLeavesTheUsageWhole() throws {
        let root = try root(version: 1, stat: "rss 50\n", usage: 1_000)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(CgroupLimitReader.fileCache(root: root, directory: "/sys/fs/cgroup/app", version: 1) == nil)
        #expect(limit(version: 1).usageBesidesPageCacheBytes(root: root) == 1_000)
    }
}
