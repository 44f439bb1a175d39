import Foundation
import ImagoTestSupport
import XCTest
@testable import ImagoBench

/// The locator reads /proc/self/cgroup and /proc/self/mountinfo (through Imago's own reader,
/// whose parsing `MemoryLimitTests` covers); these tests hand it fake copies under a temporary
/// root, with the cgroup directories they point at, and check what the sandbox accepts.
final class CgroupParsingTests: XCTestCase {
    private var tree: FakeCgroupTree!

    override func setUpWithError() throws {
        tree = try FakeCgroupTree()
    }

    override func tearDownWithError() throws {
        tree.remove()
    }

    /// Writes the fake /proc files and creates `directories` (relative to the root).
    private func fake(cgroup: String, mountinfo: String, directories: [String] = [], files: [String: String] = [:]) throws -> MemoryCgroupLocator {
        try tree.write("/proc/self/cgroup", cgroup)
        try tree.write("/proc/self/mountinfo", mountinfo)
        for directory in directories { try tree.makeDirectory("/" + directory) }
        for (path, text) in files { try tree.write("/" + path, text) }
        return MemoryCgroupLocator(root: tree.root)
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
        XCTAssertEqual(location.directory, tree.root + "/sys/fs/cgroup/memory/process_api/ab12")
        XCTAssertEqual(location.mountPoint, tree.root + "/sys/fs/cgroup/memory")
    }

    /// A mount of a sub-tree (root field "/process_api", as in a cgroup namespace or a bind
    /// mount) shows the cgroup without that prefix.
    func testV1StripsTheMountRoot() throws {
        let locator = try fake(cgroup: "4:memory:/process_api/ab12\n",
                               mountinfo: "35 31 0:32 /process_api /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
                               directories: ["sys/fs/cgroup/memory/ab12"])
        XCTAssertEqual(try locator.locate().get().directory, tree.root + "/sys/fs/cgroup/memory/ab12")
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
        XCTAssertEqual(location.directory, tree.root + "/" + directory)
    }

    /// This machine's v2 hierarchy has no memory controller; with v1's memory gone, v2 is asked and refuses.
    func testNoMemoryControllerAnywhereIsUnavailable() throws {
        let locator = try fake(cgroup: "8:pids:/\n0::/\n", mountinfo: v1Mounts, directories: ["sys/fs/cgroup/unified"],
                               files: ["sys/fs/cgroup/unified/cgroup.controllers": "\n"])
        XCTAssertThrowsError(try locator.locate().get())
    }

    /// A child is made below its parent with a name that says whose it is, is joined through its
    /// cgroup.procs, and leaves nothing when removed or when its limit cannot be written.
    func testAChildIsNamedBelowItsParentJoinedAndRemoved() async throws {
        let locator = try fake(cgroup: "4:memory:/process_api/ab12\n", mountinfo: v1Mounts,
                               directories: ["sys/fs/cgroup/memory/process_api/ab12"])
        let parent = try locator.locate().get()
        let child = try MemoryCgroupChild.make(under: parent, namePrefix: "imago-unit-", limitBytes: nil)
        let name = String(child.location.directory.dropFirst(parent.directory.count + 1))
        XCTAssertTrue(name.hasPrefix("imago-unit-\(getpid())-"), name)
        XCTAssertEqual(child.location.hierarchyPath, "/process_api/ab12/" + name)
        XCTAssertEqual(child.location.mountPoint, parent.mountPoint)
        XCTAssertTrue(FileManager.default.fileExists(atPath: child.location.directory))

        let command = child.joiningCommand("/bin/sh", ["-c", "echo joined $$"])
        let run = try await ChildProcessRunner.run(URL(fileURLWithPath: command.executable), command.arguments, timeout: .seconds(30))
        XCTAssertEqual(run.status, 0, run.stderr)
        let joined = try String(contentsOfFile: child.processesFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(run.stdout, "joined \(joined)\n", "the workload is the process that joined (exec, same pid)")
        try FileManager.default.removeItem(atPath: child.processesFile)   // a real cgroup has no such regular file

        // The fake directory has no memory.limit_in_bytes to write: typed, and nothing is left.
        XCTAssertThrowsError(try MemoryCgroupChild.make(under: parent, namePrefix: "imago-unit-", limitBytes: 1 << 20)) { error in
            XCTAssertTrue("\(error)".contains("memory.limit_in_bytes"), "\(error)")
        }
        try child.remove()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.directory), [])
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
