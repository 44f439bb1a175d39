import Testing
@testable import ImagoBench

/// The machine table's "temporary files" line: which mount a path is on, and whether an ext4 has
/// a journal, from /proc texts given here.
struct TemporaryFileSystemTests {
    static let mountinfo = """
        22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
        25 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
        40 22 0:35 / /mnt/fast rw,relatime shared:20 - tmpfs tmpfs rw,size=4194304k
        41 22 7:0 / /mnt/with\\040space rw,relatime shared:21 - ext4 /dev/loop0 rw
        42 40 0:36 / /mnt/fast rw,nosuid shared:22 - tmpfs other rw
        """

    /// The mount's options, then the file system's not already among them ("discard" on the root).
    @Test func aPathIsOnTheMostSpecificMountThatContainsIt() {
        let describe = { TemporaryFileSystem.describe(path: $0, mountinfo: Self.mountinfo, journals: ["loop0-8"]) }
        #expect(describe("/tmp/imago-bench") == "ext4, no journal (/dev/vda at /: rw,relatime,discard)")
        #expect(describe("/mnt/with space/x") == "ext4, journal (/dev/loop0 at /mnt/with space: rw,relatime)")
        // Mounted over: the later line is on top.
        #expect(describe("/mnt/fast/cache") == "tmpfs (other at /mnt/fast: rw,nosuid)")
        #expect(TemporaryFileSystem.describe(path: "/mnt/fast", mountinfo: String(Self.mountinfo.split(separator: "\n")[2]),
                                             journals: []) == "tmpfs (tmpfs at /mnt/fast: rw,relatime,size=4194304k)")
        // A prefix of a component is not containment.
        #expect(describe("/mnt/faster") == "ext4, no journal (/dev/vda at /: rw,relatime,discard)")
    }

    @Test func withoutTheJournalListAnExt4IsNotCalledEither() {
        #expect(TemporaryFileSystem.describe(path: "/tmp", mountinfo: Self.mountinfo, journals: nil)
                == "ext4 (/dev/vda at /: rw,relatime,discard)")
    }

    @Test func noMountNoDescription() {
        #expect(TemporaryFileSystem.describe(path: "/tmp", mountinfo: "", journals: []) == nil)
        #expect(TemporaryFileSystem.describe(path: "/tmp", mountinfo: "garbage line\n", journals: []) == nil)
    }

    @Test func thisMachinesTemporaryDirectoryIsNamed() {
        // Linux always has /proc/self/mountinfo, and / contains every path.
        #expect(TemporaryFileSystem.current() != nil)
    }
}
