#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// The memory the process may really use: the smallest cgroup limit that applies to it, never
/// more than physical memory.
///
/// Foundation's `ProcessInfo.physicalMemory` ignores cgroups: inside a 256 MiB container it
/// reports the host's memory, and caches sized from it get the process OOM-killed. This reads
/// the process's own cgroups (found through /proc/self/cgroup and /proc/self/mountinfo, cgroup
/// v1 and v2) and takes the minimum over the process's cgroup and all its ancestors.
///
/// Nothing here crashes or blocks on bad input: unreadable files, garbage numbers, a missing
/// mountinfo or no cgroup at all give physical memory (or the limits that could be read), and
/// `explanation` says what was ignored. On other systems than Linux it is physical memory.
public struct MemoryLimit: Sendable, Equatable {
    /// Where the figure in ``bytes`` came from.
    public enum Source: String, Sendable, Equatable {
        /// A cgroup v2 `memory.max` of the process's cgroup or an ancestor, at most physical
        /// memory.
        case cgroupV2 = "cgroup v2"
        /// A cgroup v1 `memory.limit_in_bytes` or `memory.memsw.limit_in_bytes` of the process's
        /// cgroup or an ancestor, at most physical memory.
        case cgroupV1 = "cgroup v1"
        /// No smaller cgroup limit applies (none set, none found, or not Linux), or an application
        /// supplied a fixed limit (`MemoryEnvironment.fixedLimit`).
        case physicalMemory = "physical memory"
    }

    /// The effective hard limit in bytes: min(every cgroup limit found, physical memory).
    public var bytes: Int
    /// The smallest cgroup v2 `memory.high` over the process's cgroup and its ancestors — where
    /// the kernel starts throttling and reclaiming — at most `bytes`; nil when none is set.
    public var highBytes: Int?
    /// Physical memory (`_SC_PHYS_PAGES` × page size).
    public var physicalBytes: Int
    /// What set `bytes`.
    public var source: Source
    /// The process's own memory cgroup directory (the hierarchy that set the limit, else the one
    /// carrying the memory controller); nil when none was found.
    public var cgroupDirectory: String?
    /// 1 or 2, the version of `cgroupDirectory`'s hierarchy; nil when none was found.
    public var cgroupVersion: Int?
    /// Which file of which directory set the figure, and what was unreadable or ignored.
    public var explanation: String
    /// The cgroup directory whose file set `bytes` (the process's own or an ancestor); its usage
    /// is the one to compare with `bytes`.
    var limitingDirectory: String?

    /// The limit of the running process, read once on first use and cached (thread-safe).
    public static var current: MemoryLimit {
        if let cached = cache.withLock({ $0 }) { return cached }
        return refresh()
    }

    /// Reads the limit again and replaces `current`: a limit can change while the process runs
    /// (`docker update`, systemd), and the pressure monitor calls this on every event.
    @discardableResult
    public static func refresh() -> MemoryLimit {
        let limit = read()
        cache.withLock { $0 = limit }
        return limit
    }

    /// Reads the limit with `root` prefixed to every path (/proc/self/cgroup becomes
    /// root + "/proc/self/cgroup"), so tests can run over fake trees. Does not touch `current`.
    public static func read(root: String = "/") -> MemoryLimit {
        read(root: root, physicalBytes: physicalMemory())
    }

    /// The memory used by the cgroup whose limit is `bytes` (the process's own cgroup when it
    /// sets the limit or when no limit is set): `memory.current` (v2) or `memory.usage_in_bytes`
    /// (v1), page cache included. With an ancestor's limit, the ancestor's usage is the figure that reaches it. Nil
    /// without a memory cgroup, or when the file is missing (the v2 root cgroup has none) or not
    /// a number. `root` is the same prefix as `read(root:)`'s.
    public func usageBytes(root: String = "/") -> Int? {
        guard let version = cgroupVersion, let directory = limitingDirectory ?? cgroupDirectory else { return nil }
        return CgroupLimitReader.usage(root: root, directory: directory, version: version)
    }

    /// `usageBytes(root:)` less the page cache charged to the same cgroup (its file pages, which
    /// the kernel reclaims before it kills: a process that reads or writes files, a disk cache's,
    /// fills its cgroup's usage up to the limit with them). The usage itself when `memory.stat`
    /// cannot be read; nil as `usageBytes(root:)`.
    public func usageBesidesPageCacheBytes(root: String = "/") -> Int? {
        guard let usage = usageBytes(root: root) else { return nil }
        guard let version = cgroupVersion, let directory = limitingDirectory ?? cgroupDirectory,
              let cache = CgroupLimitReader.fileCache(root: root, directory: directory, version: version) else { return usage }
        return max(0, usage - cache)
    }

    private static let cache = Mutex<MemoryLimit?>(nil)

    // MARK: - Reading

    static func read(root: String, physicalBytes: Int) -> MemoryLimit {
        #if os(Linux)
        return read(root: root, location: CgroupLocator.locate(root: root), physicalBytes: physicalBytes)
        #else
        return MemoryLimit(bytes: physicalBytes, highBytes: nil, physicalBytes: physicalBytes, source: .physicalMemory,
                           cgroupDirectory: nil, cgroupVersion: nil,
                           explanation: "Physical memory \(formatBytes(physicalBytes)); cgroups exist only on Linux.")
        #endif
    }

    /// The limit for the cgroups in `location` (the pressure monitor passes an explicit one).
    static func read(root: String, location: CgroupLocation, physicalBytes: Int) -> MemoryLimit {
        var notes = location.notes
        let v1 = location.v1.map { (hierarchy: $0, limits: CgroupLimitReader.read(root: root, hierarchy: $0)) }
        let v2 = location.v2.map { (hierarchy: $0, limits: CgroupLimitReader.read(root: root, hierarchy: $0)) }
        notes += (v2?.limits.notes ?? []) + (v1?.limits.notes ?? [])

        // The minimum of everything found; on a tie the v2 figure is kept.
        let hard = [v2?.limits.hard, v1?.limits.hard].compactMap { $0 }.min { $0.bytes < $1.bytes }
        let home: (hierarchy: CgroupHierarchy, limits: CgroupLimits)?
        if let hard {
            home = hard.version == 2 ? v2 : v1
        } else if let v2, v2.limits.hasMemoryController {
            home = v2
        } else {
            home = v1
        }

        var limit = MemoryLimit(bytes: physicalBytes, highBytes: nil, physicalBytes: physicalBytes,
                                source: .physicalMemory, cgroupDirectory: home?.hierarchy.directory,
                                cgroupVersion: home?.hierarchy.version, explanation: "")
        var sentences: [String] = []
        if let hard, hard.bytes <= physicalBytes {
            limit.bytes = hard.bytes
            limit.source = hard.version == 2 ? .cgroupV2 : .cgroupV1
            limit.limitingDirectory = hard.directory
            sentences.append("\(formatBytes(hard.bytes)) from \(hard.file) (cgroup v\(hard.version)).")
        } else if let hard {
            sentences.append("Physical memory \(formatBytes(physicalBytes)): the cgroup limit \(formatBytes(hard.bytes)) in \(hard.file) is larger.")
        } else if let home {
            sentences.append("Physical memory \(formatBytes(physicalBytes)): no memory limit is set in cgroup v\(home.hierarchy.version) \(home.hierarchy.directory) or its ancestors.")
        } else {
            sentences.append("Physical memory \(formatBytes(physicalBytes)): no memory cgroup was found.")
        }
        if let high = v2?.limits.high {
            limit.highBytes = min(high.bytes, limit.bytes)
            sentences.append("memory.high \(formatBytes(high.bytes)) from \(high.file).")
        }
        if let usage = limit.usageBytes(root: root), usage > limit.bytes, limit.source != .physicalMemory {
            sentences.append("Usage \(formatBytes(usage)) already exceeds the limit.")
        }
        if !notes.isEmpty {
            sentences.append("Ignored: " + notes.joined(separator: "; ") + ".")
        }
        limit.explanation = sentences.joined(separator: " ")
        return limit
    }

    /// `_SC_PHYS_PAGES` × page size; Foundation's figure if sysconf fails.
    static func physicalMemory() -> Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageSize = sysconf(Int32(_SC_PAGESIZE))
        if pages > 0, pageSize > 0 { return pages * pageSize }
        return Int(clamping: ProcessInfo.processInfo.physicalMemory)
    }
}

/// "268435456 bytes (256.0 MiB)": exact for logs, readable for people.
func formatBytes(_ bytes: Int) -> String {
    let gib = 1 << 30, mib = 1 << 20
    let (unit, name) = bytes >= gib ? (gib, "GiB") : (mib, "MiB")
    let whole = bytes / unit, tenth = (bytes % unit) / (unit / 10)
    return "\(bytes) bytes (\(whole).\(tenth) \(name))"
}
