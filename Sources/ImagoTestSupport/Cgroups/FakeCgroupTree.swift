import Foundation

/// A fake /proc and /sys/fs/cgroup in a temporary directory, for code that takes a root prefix
/// (`MemoryLimit.read(root:)`, `MemoryPressureMonitor(root:)`, the bench's `MemoryCgroupLocator(root:)`).
/// Paths given to it are absolute, as the process would see them; ``remove()`` deletes it all.
public final class FakeCgroupTree: Sendable {
    /// The temporary directory standing for `/`.
    public let root: String

    /// Makes an empty tree.
    public init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cgroup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// Deletes the tree.
    public func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// Writes `contents` at `path` (absolute, as the process would see it), creating directories.
    public func write(_ path: String, _ contents: String) throws {
        let full = root + path
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try contents.write(toFile: full, atomically: false, encoding: .utf8)
    }

    /// Makes the directory `path` (and its parents).
    public func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: root + path, withIntermediateDirectories: true)
    }

    /// A FIFO at `path`: a reader that opened it blocking would stall forever.
    public func makeFIFO(_ path: String) throws {
        try makeDirectory((path as NSString).deletingLastPathComponent)
        guard mkfifo(root + path, 0o644) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: root + path,
                                                           NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
    }

    /// /proc/self/cgroup with the given lines.
    public func cgroupFile(_ lines: String...) throws {
        try write("/proc/self/cgroup", lines.joined(separator: "\n") + "\n")
    }

    /// /proc/self/mountinfo: a root filesystem line, then the given lines.
    public func mountInfo(_ lines: String...) throws {
        let base = "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n31 22 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
        try write("/proc/self/mountinfo", base + lines.joined(separator: "\n") + "\n")
    }

    /// A process in cgroup v2 `/app.slice` (at `directory`) with a 100 MiB `memory.max` and
    /// 10 MiB in use; with `pressureFiles`, also `memory.pressure` and `memory.events`.
    public func unifiedCgroup(directory: String, pressureFiles: Bool) throws {
        try cgroupFile("0::/app.slice")
        try mountInfo(Self.v2Mount())
        try write(directory + "/cgroup.controllers", "memory\n")
        try write(directory + "/memory.max", "\(100 << 20)\n")
        try write(directory + "/memory.current", "\(10 << 20)\n")
        if pressureFiles {
            try write(directory + "/memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
            try write(directory + "/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")
        }
    }

    /// A mountinfo line of the v1 memory hierarchy.
    public static func v1Mount(root: String = "/", at mountPoint: String = "/sys/fs/cgroup/memory") -> String {
        "35 31 0:32 \(root) \(mountPoint) rw,nosuid,nodev,noexec,relatime shared:17 - cgroup cgroup rw,memory"
    }

    /// A mountinfo line of the unified hierarchy.
    public static func v2Mount(root: String = "/", at mountPoint: String = "/sys/fs/cgroup/unified") -> String {
        "41 31 0:38 \(root) \(mountPoint) rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate"
    }
}
