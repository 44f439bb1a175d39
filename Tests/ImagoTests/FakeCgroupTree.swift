import Foundation
import Imago
import XCTest

/// A fake /proc and /sys/fs/cgroup in a temporary directory, for code that takes a root prefix
/// (`MemoryLimit.read(root:)`, `MemoryPressureMonitor(root:)`).
final class FakeCgroupTree {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cgroup-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// Writes `contents` at `path` (absolute, as the process would see it), creating directories.
    func write(_ path: String, _ contents: String) throws {
        let full = root + path
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try contents.write(toFile: full, atomically: false, encoding: .utf8)
    }

    func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: root + path, withIntermediateDirectories: true)
    }

    /// A FIFO at `path`: a reader that opened it blocking would stall forever.
    func makeFIFO(_ path: String) throws {
        try makeDirectory((path as NSString).deletingLastPathComponent)
        XCTAssertEqual(mkfifo(root + path, 0o644), 0)
    }

    /// /proc/self/cgroup with the given lines.
    func cgroupFile(_ lines: String...) throws {
        try write("/proc/self/cgroup", lines.joined(separator: "\n") + "\n")
    }

    /// /proc/self/mountinfo: a root filesystem line, then the given lines.
    func mountInfo(_ lines: String...) throws {
        let base = "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n31 22 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
        try write("/proc/self/mountinfo", base + lines.joined(separator: "\n") + "\n")
    }

    /// A process in cgroup v2 `/app.slice` (at `directory`) with a 100 MiB `memory.max` and
    /// 10 MiB in use; with `pressureFiles`, also `memory.pressure` and `memory.events`.
    func unifiedCgroup(directory: String, pressureFiles: Bool) throws {
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
    static func v1Mount(root: String = "/", at mountPoint: String = "/sys/fs/cgroup/memory") -> String {
        "35 31 0:32 \(root) \(mountPoint) rw,nosuid,nodev,noexec,relatime shared:17 - cgroup cgroup rw,memory"
    }

    /// A mountinfo line of the unified hierarchy.
    static func v2Mount(root: String = "/", at mountPoint: String = "/sys/fs/cgroup/unified") -> String {
        "41 31 0:38 \(root) \(mountPoint) rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate"
    }
}

extension MemoryPressureMonitor.Configuration {
    /// Polling every 10 ms and recovery after 50 ms, so tests wait milliseconds, not seconds.
    static func fast(repeatInterval: Duration = .zero) -> Self {
        .init(pollingInterval: .milliseconds(10), minimumRepeatInterval: repeatInterval, recoveryInterval: .milliseconds(50))
    }
}
