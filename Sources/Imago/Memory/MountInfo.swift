/// One line of /proc/self/mountinfo, with the fields the cgroup lookup and the bench's machine
/// description need (`package`: ImagoBench names the file system its disk scenarios write to).
package struct MountInfoEntry: Sendable, Equatable {
    /// Field 4: the directory of the mounted filesystem that appears at `mountPoint`. For a
    /// cgroup mount in a container without a cgroup namespace this is the container's own cgroup
    /// (e.g. "/docker/abc"), not "/".
    package var root: String
    /// Field 5: where it is mounted.
    package var mountPoint: String
    /// Field 6, split at commas: the mount's own options ("rw", "relatime", ...).
    package var mountOptions: [String]
    /// The first field after the " - " separator: "cgroup2", "cgroup", "tmpfs", ...
    package var fileSystemType: String
    /// The field after the type: the device or source ("/dev/vda1", "tmpfs", ...).
    package var source: String
    /// The last field, split at commas: for cgroup v1 the controllers ("rw", "memory", ...).
    package var superOptions: [String]
}

/// Parses /proc/self/mountinfo (proc(5)): "36 35 98:0 /root /mnt opts [optional...] - type source superopts".
package enum MountInfo {
    /// The well-formed lines, and how many lines were not (counted, not fatal: one odd line
    /// must not hide the cgroup mounts).
    package static func parse(_ text: String) -> (entries: [MountInfoEntry], malformedLines: Int) {
        var entries: [MountInfoEntry] = []
        var malformed = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if let entry = parseLine(line) { entries.append(entry) } else { malformed += 1 }
        }
        return (entries, malformed)
    }

    static func parseLine(_ line: Substring) -> MountInfoEntry? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        // Six fixed fields, optional fields, the "-" separator, then type, source, super options.
        guard fields.count >= 10,
              let separator = fields[6...].firstIndex(of: "-"),
              fields.count - separator >= 4
        else { return nil }
        return MountInfoEntry(
            root: unescape(fields[3]),
            mountPoint: unescape(fields[4]),
            mountOptions: unescape(fields[5]).split(separator: ",").map(String.init),
            fileSystemType: unescape(fields[separator + 1]),
            source: unescape(fields[separator + 2]),
            superOptions: unescape(fields[separator + 3]).split(separator: ",").map(String.init))
    }

    /// The mount an absolute, resolved `path` is on: the entry whose mount point contains it most
    /// specifically, the later line when two share a mount point (the later one is on top).
    package static func mount(containing path: String, among entries: [MountInfoEntry]) -> MountInfoEntry? {
        var best: MountInfoEntry?
        for entry in entries where CgroupLocator.relative(path, to: entry.mountPoint) != nil {
            if best.map({ entry.mountPoint.count >= $0.mountPoint.count }) ?? true { best = entry }
        }
        return best
    }

    /// Undoes the kernel's octal escapes: space, tab, newline and backslash appear in mountinfo
    /// as `\040`, `\011`, `\012` and `\134`. A backslash not followed by three octal digits is
    /// kept as it is.
    static func unescape(_ field: Substring) -> String {
        let bytes = Array(field.utf8)
        guard bytes.contains(UInt8(ascii: "\\")) else { return String(field) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\"), index + 4 <= bytes.count,
               let value = octal(bytes[(index + 1)..<(index + 4)]) {
                out.append(value)
                index += 4
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func octal(_ digits: ArraySlice<UInt8>) -> UInt8? {
        var value = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7") else { return nil }
            value = value * 8 + Int(digit - UInt8(ascii: "0"))
        }
        return value <= 255 ? UInt8(value) : nil
    }
}
