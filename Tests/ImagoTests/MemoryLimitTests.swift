@_spi(Cgroups) @testable import Imago
import ImagoTestSupport
import XCTest

/// `MemoryLimit` over fake cgroup trees: where the cgroup is found, which file sets the figure,
/// and what bad input gives.
final class MemoryLimitTests: XCTestCase {
    private var tree: FakeCgroupTree!
    private let physical = 8 << 30
    private let v1Dir = "/sys/fs/cgroup/memory/app/worker"
    private let v2Dir = "/sys/fs/cgroup/unified/app.slice/worker"

    override func setUpWithError() throws { tree = try FakeCgroupTree() }
    override func tearDown() { tree.remove() }

    private func read() -> MemoryLimit { MemoryLimit.read(root: tree.root, physicalBytes: physical) }

    private func v1Layout() throws {
        try tree.cgroupFile("5:cpu,cpuacct:/", "4:memory:/app/worker", "0::/")
        try tree.mountInfo(FakeCgroupTree.v1Mount())
        try tree.makeDirectory(v1Dir)
    }

    private func v2Layout() throws {
        try tree.cgroupFile("0::/app.slice/worker")
        try tree.mountInfo(FakeCgroupTree.v2Mount())
        try tree.write(v2Dir + "/cgroup.controllers", "cpu io memory pids\n")
    }

    func testV1Only() throws {
        try v1Layout()
        try tree.write(v1Dir + "/memory.limit_in_bytes", "268435456\n")
        try tree.write(v1Dir + "/memory.usage_in_bytes", "1048576\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, 256 << 20)
        XCTAssertEqual(limit.source, .cgroupV1)
        XCTAssertEqual(limit.cgroupDirectory, v1Dir)
        XCTAssertEqual(limit.cgroupVersion, 1)
        XCTAssertNil(limit.highBytes)
        XCTAssertEqual(limit.physicalBytes, physical)
        XCTAssertTrue(limit.explanation.contains(v1Dir + "/memory.limit_in_bytes"), limit.explanation)
        XCTAssertEqual(limit.usageBytes(root: tree.root), 1 << 20)
    }

    func testV2OnlyWithHigh() throws {
        try v2Layout()
        try tree.write(v2Dir + "/memory.max", "536870912\n")
        try tree.write(v2Dir + "/memory.high", "419430400\n")
        try tree.write(v2Dir + "/memory.current", "2097152\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, 512 << 20)
        XCTAssertEqual(limit.highBytes, 400 << 20)
        XCTAssertEqual(limit.source, .cgroupV2)
        XCTAssertEqual(limit.cgroupDirectory, v2Dir)
        XCTAssertEqual(limit.cgroupVersion, 2)
        XCTAssertTrue(limit.explanation.contains(v2Dir + "/memory.max"), limit.explanation)
        XCTAssertEqual(limit.usageBytes(root: tree.root), 2 << 20)
    }

    func testBothHierarchiesTakeTheSmaller() throws {
        try tree.cgroupFile("4:memory:/app/worker", "0::/app.slice/worker")
        try tree.mountInfo(FakeCgroupTree.v1Mount(), FakeCgroupTree.v2Mount())
        try tree.write(v2Dir + "/memory.max", "\(300 << 20)\n")
        try tree.write(v1Dir + "/memory.limit_in_bytes", "\(200 << 20)\n")
        var limit = read()
        XCTAssertEqual(limit.bytes, 200 << 20)
        XCTAssertEqual(limit.source, .cgroupV1)
        XCTAssertEqual(limit.cgroupDirectory, v1Dir)

        try tree.write(v1Dir + "/memory.limit_in_bytes", "\(400 << 20)\n")
        limit = read()
        XCTAssertEqual(limit.bytes, 300 << 20)
        XCTAssertEqual(limit.source, .cgroupV2)
        XCTAssertEqual(limit.cgroupDirectory, v2Dir)
        XCTAssertEqual(limit.cgroupVersion, 2)
    }

    func testHybridHostWithoutV2MemoryControllerNamesTheV1Cgroup() throws {
        // This machine's layout: v2 mounted at unified without memory, memory on v1, no limits.
        try tree.cgroupFile("4:memory:/app/worker", "0::/")
        try tree.mountInfo(FakeCgroupTree.v1Mount(), FakeCgroupTree.v2Mount())
        try tree.write("/sys/fs/cgroup/unified/cgroup.controllers", "\n")
        try tree.write(v1Dir + "/memory.limit_in_bytes", "9223372036854771712\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, physical)
        XCTAssertEqual(limit.source, .physicalMemory)
        XCTAssertEqual(limit.cgroupDirectory, v1Dir)
        XCTAssertEqual(limit.cgroupVersion, 1)
        XCTAssertTrue(limit.explanation.contains("no memory limit is set"), limit.explanation)
    }

    func testSmallerAncestorWins() throws {
        try v1Layout()
        try tree.write(v1Dir + "/memory.limit_in_bytes", "\(1 << 30)\n")
        try tree.write("/sys/fs/cgroup/memory/app/memory.limit_in_bytes", "\(300 << 20)\n")
        try tree.write("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")
        try tree.write("/sys/fs/cgroup/memory/app/memory.usage_in_bytes", "\(250 << 20)\n")
        try tree.write(v1Dir + "/memory.usage_in_bytes", "\(10 << 20)\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, 300 << 20)
        XCTAssertEqual(limit.cgroupDirectory, v1Dir, "the process's own cgroup, not the limiting ancestor")
        XCTAssertTrue(limit.explanation.contains("/sys/fs/cgroup/memory/app/memory.limit_in_bytes"), limit.explanation)
        XCTAssertEqual(limit.usageBytes(root: tree.root), 250 << 20, "the limiting cgroup's usage is the one that reaches the limit")
    }

    func testNothingAboveTheMountPointIsRead() throws {
        try v1Layout()
        try tree.write("/sys/fs/cgroup/memory.limit_in_bytes", "\(1 << 20)\n")
        XCTAssertEqual(read().bytes, physical)
    }

    func testV2MaxMeansNoLimitButAncestorCounts() throws {
        try v2Layout()
        try tree.write(v2Dir + "/memory.max", "max\n")
        try tree.write(v2Dir + "/memory.high", "max\n")
        var limit = read()
        XCTAssertEqual(limit.bytes, physical)
        XCTAssertEqual(limit.source, .physicalMemory)
        XCTAssertNil(limit.highBytes)
        XCTAssertEqual(limit.cgroupDirectory, v2Dir)

        try tree.write("/sys/fs/cgroup/unified/app.slice/memory.high", "\(100 << 20)\n")
        limit = read()
        XCTAssertEqual(limit.highBytes, 100 << 20)
        XCTAssertEqual(limit.bytes, physical)
    }

    func testV1SentinelMeansNoLimit() throws {
        try v1Layout()
        try tree.write(v1Dir + "/memory.limit_in_bytes", "9223372036854771712\n")
        try tree.write(v1Dir + "/memory.memsw.limit_in_bytes", "9223372036854775807\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, physical)
        XCTAssertEqual(limit.source, .physicalMemory)
        XCTAssertEqual(limit.cgroupVersion, 1)
    }

    func testMemswSmallerBinds() throws {
        try v1Layout()
        try tree.write(v1Dir + "/memory.limit_in_bytes", "\(512 << 20)\n")
        try tree.write(v1Dir + "/memory.memsw.limit_in_bytes", "\(384 << 20)\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, 384 << 20)
        XCTAssertTrue(limit.explanation.contains("memory.memsw.limit_in_bytes"), limit.explanation)
    }

    func testMalformedNumbersAreIgnoredAndNamed() throws {
        try v2Layout()
        try tree.write(v2Dir + "/memory.max", "12abc\n")
        try tree.write(v2Dir + "/memory.high", "-5\n")
        try tree.write("/sys/fs/cgroup/unified/app.slice/memory.max", "\(700 << 20)\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, 700 << 20)
        XCTAssertNil(limit.highBytes)
        XCTAssertTrue(limit.explanation.contains("\"12abc\""), limit.explanation)
        XCTAssertTrue(limit.explanation.contains("\"-5\""), limit.explanation)
    }

    func testUnreadableFileIsNamedAndDoesNotStall() throws {
        try v1Layout()
        try tree.makeFIFO(v1Dir + "/memory.limit_in_bytes")          // a blocking open would hang
        try tree.makeDirectory(v1Dir + "/memory.memsw.limit_in_bytes")   // read(2) fails on a directory
        try tree.write("/sys/fs/cgroup/memory/app/memory.limit_in_bytes", "\(900 << 20)\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, 900 << 20)
        XCTAssertTrue(limit.explanation.contains(v1Dir + "/memory.limit_in_bytes is not a regular file"), limit.explanation)
        XCTAssertTrue(limit.explanation.contains(v1Dir + "/memory.memsw.limit_in_bytes is not a regular file"), limit.explanation)
    }

    func testContainerStyleMountRootIsStripped() throws {
        // No cgroup namespace: the container's cgroup /docker/abc is what is mounted.
        try tree.cgroupFile("4:memory:/docker/abc/sub")
        try tree.mountInfo(FakeCgroupTree.v1Mount(root: "/docker/abc"))
        try tree.write("/sys/fs/cgroup/memory/sub/memory.limit_in_bytes", "9223372036854771712\n")
        try tree.write("/sys/fs/cgroup/memory/memory.limit_in_bytes", "\(256 << 20)\n")
        let limit = read()
        XCTAssertEqual(limit.cgroupDirectory, "/sys/fs/cgroup/memory/sub")
        XCTAssertEqual(limit.bytes, 256 << 20)
        XCTAssertTrue(limit.explanation.contains("/sys/fs/cgroup/memory/memory.limit_in_bytes"), limit.explanation)
    }

    func testPathOutsideTheMountRootUsesTheMountPoint() throws {
        try tree.cgroupFile("0::/elsewhere/job")
        try tree.mountInfo(FakeCgroupTree.v2Mount(root: "/kubepods/pod1", at: "/sys/fs/cgroup"))
        try tree.write("/sys/fs/cgroup/memory.max", "\(128 << 20)\n")
        try tree.write("/sys/fs/cgroup/memory.current", "\(1 << 20)\n")
        let limit = read()
        XCTAssertEqual(limit.cgroupDirectory, "/sys/fs/cgroup")
        XCTAssertEqual(limit.bytes, 128 << 20)
        XCTAssertTrue(limit.explanation.contains("outside the mount root /kubepods/pod1"), limit.explanation)
    }

    func testOctalEscapesInMountInfo() throws {
        try tree.cgroupFile("4:memory:/job")
        try tree.mountInfo(FakeCgroupTree.v1Mount(at: "/cgroups/my\\040memory"))
        try tree.write("/cgroups/my memory/job/memory.limit_in_bytes", "\(64 << 20)\n")
        let limit = read()
        XCTAssertEqual(limit.cgroupDirectory, "/cgroups/my memory/job")
        XCTAssertEqual(limit.bytes, 64 << 20)
        XCTAssertEqual(MountInfo.unescape("a\\040b\\134c\\011d\\9zz\\04"), "a b\\c\td\\9zz\\04")
    }

    func testMissingProcSelfCgroupGivesPhysicalMemory() throws {
        try tree.mountInfo(FakeCgroupTree.v1Mount())
        let limit = read()
        XCTAssertEqual(limit.bytes, physical)
        XCTAssertEqual(limit.source, .physicalMemory)
        XCTAssertNil(limit.cgroupDirectory)
        XCTAssertNil(limit.cgroupVersion)
        XCTAssertNil(limit.usageBytes(root: tree.root))
        XCTAssertTrue(limit.explanation.contains("/proc/self/cgroup is missing"), limit.explanation)
    }

    func testMissingMountInfoGivesPhysicalMemory() throws {
        try tree.cgroupFile("4:memory:/app/worker")
        let limit = read()
        XCTAssertEqual(limit.bytes, physical)
        XCTAssertNil(limit.cgroupDirectory)
        XCTAssertTrue(limit.explanation.contains("/proc/self/mountinfo is missing"), limit.explanation)
    }

    func testGarbageProcFilesGivePhysicalMemory() throws {
        try tree.write("/proc/self/cgroup", "garbage\n::\n\u{0}\u{1}\n4:memory\n")
        try tree.write("/proc/self/mountinfo", "nonsense line\n35 31\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, physical)
        XCTAssertNil(limit.cgroupDirectory)
        XCTAssertTrue(limit.explanation.contains("no memory cgroup was found"), limit.explanation)
    }

    func testNoCgroupMountForTheMembership() throws {
        try tree.cgroupFile("4:memory:/app/worker")
        try tree.mountInfo()
        let limit = read()
        XCTAssertNil(limit.cgroupDirectory)
        XCTAssertTrue(limit.explanation.contains("no cgroup mount with the memory controller"), limit.explanation)
    }

    func testLimitAbovePhysicalMemoryIsCapped() throws {
        try v1Layout()
        try tree.write(v1Dir + "/memory.limit_in_bytes", "\(64 << 30)\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, physical)
        XCTAssertEqual(limit.source, .physicalMemory)
        XCTAssertTrue(limit.explanation.contains("is larger"), limit.explanation)
    }

    func testUsageAboveTheLimitIsReported() throws {
        try v2Layout()
        try tree.write(v2Dir + "/memory.max", "\(100 << 20)\n")
        try tree.write(v2Dir + "/memory.current", "\(150 << 20)\n")
        let limit = read()
        XCTAssertEqual(limit.bytes, 100 << 20)
        XCTAssertEqual(limit.usageBytes(root: tree.root), 150 << 20)
        XCTAssertTrue(limit.explanation.contains("already exceeds the limit"), limit.explanation)
    }

    func testLimitValueParsing() {
        XCTAssertEqual(CgroupLimitValue.parse("4096\n"), .bytes(4096))
        XCTAssertEqual(CgroupLimitValue.parse(" max "), .unlimited)
        XCTAssertEqual(CgroupLimitValue.parse("4611686018427387904"), .unlimited)   // 1 << 62
        XCTAssertEqual(CgroupLimitValue.parse("4611686018427387903"), .bytes((1 << 62) - 1))
        XCTAssertEqual(CgroupLimitValue.parse("99999999999999999999999"), .unlimited)
        XCTAssertEqual(CgroupLimitValue.parse(""), .malformed(""))
        XCTAssertEqual(CgroupLimitValue.parse("1.5G"), .malformed("1.5G"))
    }

    func testMembershipPathMayContainColons() {
        let lines = CgroupLocator.parseMemberships("0::/a:b/c\n4:memory,hugetlb:/x\nbad\n")
        XCTAssertEqual(lines, [.init(hierarchyID: 0, controllers: [], path: "/a:b/c"),
                               .init(hierarchyID: 4, controllers: ["memory", "hugetlb"], path: "/x")])
        XCTAssertNil(CgroupLocator.relative("/a/../b", to: "/a"))
        XCTAssertEqual(CgroupLocator.relative("/a/b/", to: "/a"), "b")
    }

    func testThisMachineGivesAConsistentFigure() {
        let limit = MemoryLimit.refresh()
        XCTAssertGreaterThan(limit.bytes, 0)
        XCTAssertLessThanOrEqual(limit.bytes, limit.physicalBytes)
        XCTAssertEqual(MemoryLimit.current, limit)
        print("MemoryLimit on this machine: \(limit.explanation) usage: \(limit.usageBytes().map(String.init) ?? "nil")")
    }
}
