import Foundation
import XCTest
@testable import ImagoBench

/// The locator reads /proc/self/cgroup and /proc/self/mountinfo (through Imago's own reader,
/// whose parsing `MemoryLimitTests` covers); these tests hand it fake copies under a temporary
/// root, with the cgroup directories they point at, and check what the sandbox accepts.
final class CgroupParsingTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cgroup-parsing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("proc/self"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    /// Writes the fake /proc files and creates `directories` (relative to the root).
    private func fake(cgroup: String, mountinfo: String, directories: [String] = [], files: [String: String] = [:]) throws -> MemoryCgroupLocator {
        try cgroup.write(to: root.appendingPathComponent("proc/self/cgroup"), atomically: true, encoding: .utf8)
        try mountinfo.write(to: root.appendingPathComponent("proc/self/mountinfo"), atomically: true, encoding: .utf8)
        for directory in directories {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(directory), withIntermediateDirectories: true)
        }
        for (path, text) in files { try text.write(to: root.appendingPathComponent(path), atomically: true, encoding: .utf8) }
        return MemoryCgroupLocator(root: root.path)
    }

    /// This machine's shape: cgroup v1 memory controller at /sys/fs/cgroup/memory, v2 beside it without memory.
    private let v1Mounts = """
        31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
        32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
        35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:7 - cgroup cgroup rw,memory
        41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
        """

    func testV1FindsTheOwnMemoryCgroupUnderItsMount() throws {
        let locator = try fake(cgroup: "9:name=systemd:/\n4:memory:/process_api/ab12\n0::/\n", mountinfo: v1Mounts,
                               directories: ["sys/fs/cgroup/memory/process_api/ab12"])
        let location = try locator.locate().get()
        XCTAssertEqual(location.version, .v1)
        XCTAssertEqual(location.hierarchyPath, "/process_api/ab12")
        XCTAssertEqual(location.directory, root.path + "/sys/fs/cgroup/memory/process_api/ab12")
    }

    /// A mount of a sub-tree (root field "/process_api", as in a cgroup namespace or a bind
    /// mount) shows the cgroup without that prefix.
    func testV1StripsTheMountRoot() throws {
        let locator = try fake(cgroup: "4:memory:/process_api/ab12\n",
                               mountinfo: "35 31 0:32 /process_api /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
                               directories: ["sys/fs/cgroup/memory/ab12"])
        XCTAssertEqual(try locator.locate().get().directory, root.path + "/sys/fs/cgroup/memory/ab12")
    }

    func testV1WithoutAMemoryMountIsUnavailable() throws {
        let locator = try fake(cgroup: "4:memory:/job\n", mountinfo: "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n")
        XCTAssertThrowsError(try locator.locate().get()) { error in
            XCTAssertTrue("\(error)".contains("no cgroup mount with the memory controller"), "\(error)")
        }
    }

    func testTheRootCgroupIsRefused() throws {
        let locator = try fake(cgroup: "4:memory:/\n", mountinfo: v1Mounts, directories: ["sys/fs/cgroup/memory"])
        XCTAssertThrowsError(try locator.locate().get()) { error in
            XCTAssertTrue("\(error)".contains("root memory cgroup"), "\(error)")
        }
    }

    func testV2NeedsMemoryInTheParentsControllers() throws {
        let mounts = "29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
        let directory = "sys/fs/cgroup/user.slice/job.scope"
        let without = try fake(cgroup: "0::/user.slice/job.scope\n", mountinfo: mounts, directories: [directory],
                               files: [directory + "/cgroup.controllers": "cpu io pids\n"])
        XCTAssertThrowsError(try without.locate().get()) { error in
            XCTAssertTrue("\(error)".contains("cgroup.controllers"), "\(error)")
        }
        let with = try fake(cgroup: "0::/user.slice/job.scope\n", mountinfo: mounts, directories: [directory],
                            files: [directory + "/cgroup.controllers": "cpu io memory pids\n"])
        let location = try with.locate().get()
        XCTAssertEqual(location.version, .v2)
        XCTAssertEqual(location.directory, root.path + "/" + directory)
    }

    /// This machine's v2 hierarchy has no memory controller; with v1's memory gone, v2 is asked and refuses.
    func testNoMemoryControllerAnywhereIsUnavailable() throws {
        let locator = try fake(cgroup: "8:pids:/\n0::/\n", mountinfo: v1Mounts, directories: ["sys/fs/cgroup/unified"],
                               files: ["sys/fs/cgroup/unified/cgroup.controllers": "\n"])
        XCTAssertThrowsError(try locator.locate().get())
    }

    func testCounterFilesParse() {
        let control = CgroupCounterFiles.keyedValues("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n")
        XCTAssertEqual(control["oom_kill"], 3)
        XCTAssertEqual(control["under_oom"], 0)
        let events = CgroupCounterFiles.keyedValues("low 0\nhigh 12\nmax 40\noom 2\noom_kill 1\noom_group_kill 0\n")
        XCTAssertEqual(events["high"], 12)
        XCTAssertEqual(events["oom_kill"], 1)
        XCTAssertEqual(CgroupCounterFiles.integer("268435456\n"), 268_435_456)
        XCTAssertNil(CgroupCounterFiles.integer(nil))
    }
}
