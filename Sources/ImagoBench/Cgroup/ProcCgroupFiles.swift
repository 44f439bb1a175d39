/// The two /proc files that say where a process's cgroups are, parsed without touching the file
/// system (the locator reads them; tests hand in fake texts).
public enum ProcCgroupFiles {
    /// One line of /proc/<pid>/cgroup: `hierarchy-ID:controller-list:cgroup-path`.
    public struct Membership: Sendable, Equatable {
        /// 0 for the cgroup v2 unified hierarchy.
        public let hierarchyID: Int
        /// Controllers bound to the hierarchy (empty for v2; `name=systemd` style names kept as they are).
        public let controllers: [String]
        /// The process's cgroup, relative to the hierarchy's root, e.g. "/process_api/ab12".
        public let path: String
    }

    /// One line of /proc/<pid>/mountinfo (only the fields the locator needs).
    public struct Mount: Sendable, Equatable {
        /// The directory of the mounted file system that appears at `mountPoint` ("/" unless a
        /// sub-tree is bind-mounted or a cgroup namespace hides the upper levels).
        public let root: String
        public let mountPoint: String
        /// e.g. "cgroup", "cgroup2", "tmpfs".
        public let fileSystemType: String
        /// Per-superblock options; for cgroup v1 they name the controllers, e.g. ["rw", "memory"].
        public let superOptions: [String]
    }

    /// Parses /proc/<pid>/cgroup; malformed lines are skipped.
    public static func memberships(_ text: String) -> [Membership] {
        text.split(separator: "\n").compactMap { line in
            // The path may itself contain ':', so split at the first two only.
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let id = Int(parts[0]) else { return nil }
            let controllers = parts[1].split(separator: ",").map(String.init)
            return Membership(hierarchyID: id, controllers: controllers, path: String(parts[2]))
        }
    }

    /// Parses /proc/<pid>/mountinfo; malformed lines are skipped. Format (proc(5)):
    /// `id parent major:minor root mount-point options [optional...] - type source super-options`.
    public static func mounts(_ text: String) -> [Mount] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            // The optional fields end at a lone "-"; there may be none of them.
            guard let separator = fields.firstIndex(of: "-"), separator >= 6, fields.count >= separator + 4 else { return nil }
            return Mount(root: unescape(fields[3]), mountPoint: unescape(fields[4]), fileSystemType: fields[separator + 1],
                         superOptions: fields[separator + 3].split(separator: ",").map(String.init))
        }
    }

    /// The kernel writes space, tab, newline and backslash in mountinfo paths as octal escapes
    /// (`\040` etc.), so a path with a space does not split the line.
    static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        let input = Array(field.utf8)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "\\"), index + 3 < input.count,
               let value = UInt8(String(decoding: input[(index + 1)...(index + 3)], as: UTF8.self), radix: 8) {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `path` relative to a mount whose root is `mountRoot`, or nil when the mount does not
    /// contain it. A mount of the hierarchy's root ("/") contains every path unchanged.
    static func path(_ path: String, relativeTo mountRoot: String) -> String? {
        if mountRoot == "/" { return path }
        if path == mountRoot { return "/" }
        guard path.hasPrefix(mountRoot + "/") else { return nil }
        return String(path.dropFirst(mountRoot.count))
    }
}
