/// Where the process's cgroup of one hierarchy is in the file system. Paths are as the process
/// sees them, without the test root prefix (`SmallFile.join(root, ...)` adds it).
/// SPI for the bench's cgroup sandbox, so both read /proc the same way.
@_spi(Cgroups) public struct CgroupHierarchy: Sendable, Equatable {
    /// 1 (the v1 hierarchy carrying the memory controller) or 2 (the unified hierarchy).
    public var version: Int
    /// Where the hierarchy is mounted, e.g. "/sys/fs/cgroup/memory".
    public var mountPoint: String
    /// The process's own cgroup directory, at or below `mountPoint`.
    public var directory: String
    /// The process's cgroup path inside the hierarchy, as /proc/self/cgroup says ("/" is the
    /// hierarchy's root cgroup).
    public var hierarchyPath: String
    /// False when that path lies outside the mount's root and `directory` is the mount point
    /// standing in for it.
    public var isOwnDirectory: Bool

    /// `directory`, its parent, ..., up to and including `mountPoint`: the cgroups whose limits
    /// apply to the process (a limit anywhere above also caps everything below).
    var ancestry: [String] {
        var result = [directory]
        var current = directory
        while current != mountPoint, current.count > mountPoint.count,
              let slash = current.lastIndex(of: "/") {
            current = String(current[..<slash])
            if current.isEmpty { current = "/" }
            result.append(current)
        }
        return result
    }
}

/// The process's memory-related cgroups in both hierarchies (either or both may be absent), and
/// notes on what could not be used.
@_spi(Cgroups) public struct CgroupLocation: Sendable, Equatable {
    public var v1: CgroupHierarchy?
    public var v2: CgroupHierarchy?
    public var notes: [String] = []
}

/// Finds the process's cgroups from /proc/self/cgroup and /proc/self/mountinfo, never from a
/// hard-coded /sys/fs/cgroup path: hosts mount the hierarchies in different places (unified,
/// hybrid with v2 at /sys/fs/cgroup/unified, v1 only), and containers show them at their own
/// cgroup rather than at the hierarchy's root.
@_spi(Cgroups) public enum CgroupLocator {
    /// One line of /proc/self/cgroup: "hierarchy-ID:controller-list:cgroup-path".
    struct Membership: Equatable {
        var hierarchyID: Int
        var controllers: [String]
        var path: String
    }

    public static func locate(root: String) -> CgroupLocation {
        var location = CgroupLocation()
        let cgroupFile = SmallFile.join(root, "/proc/self/cgroup")
        let memberships: [Membership]
        switch SmallFile.read(cgroupFile) {
        case .success(let text): memberships = parseMemberships(text)
        case .failure(let failure):
            location.notes.append("/proc/self/cgroup is \(failure), so no cgroup is known")
            return location
        }
        let mountInfoFile = SmallFile.join(root, "/proc/self/mountinfo")
        let mounts: [MountInfoEntry]
        switch SmallFile.read(mountInfoFile) {
        case .success(let text):
            let parsed = MountInfo.parse(text)
            mounts = parsed.entries
            if parsed.malformedLines > 0 {
                location.notes.append("ignored \(parsed.malformedLines) malformed line(s) of /proc/self/mountinfo")
            }
        case .failure(let failure):
            location.notes.append("/proc/self/mountinfo is \(failure), so no cgroup mount is known")
            return location
        }

        if let member = memberships.first(where: { $0.hierarchyID == 0 && $0.controllers.isEmpty }) {
            let candidates = mounts.filter { $0.fileSystemType == "cgroup2" }
            if let mount = bestMount(for: member.path, among: candidates) {
                location.v2 = hierarchy(version: 2, path: member.path, mount: mount, notes: &location.notes)
            } else {
                location.notes.append("the process is in cgroup v2 \(member.path) but no cgroup2 mount was found")
            }
        }
        if let member = memberships.first(where: { $0.hierarchyID != 0 && $0.controllers.contains("memory") }) {
            let candidates = mounts.filter { $0.fileSystemType == "cgroup" && $0.superOptions.contains("memory") }
            if let mount = bestMount(for: member.path, among: candidates) {
                location.v1 = hierarchy(version: 1, path: member.path, mount: mount, notes: &location.notes)
            } else {
                location.notes.append("the process is in cgroup v1 memory \(member.path) but no cgroup mount with the memory controller was found")
            }
        }
        return location
    }

    /// The well-formed lines of /proc/self/cgroup; the path may itself contain colons.
    static func parseMemberships(_ text: String) -> [Membership] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let id = Int(parts[0]), parts[2].hasPrefix("/") else { return nil }
            let controllers = parts[1].split(separator: ",").map(String.init)
            return Membership(hierarchyID: id, controllers: controllers, path: String(parts[2]))
        }
    }

    /// The mount whose root contains `path` most specifically; otherwise the first one (the
    /// path is then resolved to that mount point, see `directory(for:mountRoot:mountPoint:)`).
    static func bestMount(for path: String, among mounts: [MountInfoEntry]) -> MountInfoEntry? {
        let containing = mounts.filter { relative(path, to: $0.root) != nil }
        return containing.max(by: { $0.root.count < $1.root.count }) ?? mounts.first
    }

    /// The directory of cgroup `path` under a mount of the hierarchy's `mountRoot` at
    /// `mountPoint`; nil when `path` is not under the mount root (the caller then uses the mount
    /// point itself: in a container without a cgroup namespace, the container's cgroup is
    /// mounted as the root, and the process's path names a directory that is not visible).
    static func directory(for path: String, mountRoot: String, mountPoint: String) -> String? {
        guard let rest = relative(path, to: mountRoot) else { return nil }
        return rest.isEmpty ? mountPoint : SmallFile.join(mountPoint, "/" + rest)
    }

    /// `path` below `base` as components joined by "/" ("" when equal), nil when outside or
    /// when `path` climbs with "..".
    static func relative(_ path: String, to base: String) -> String? {
        let pathParts = components(path), baseParts = components(base)
        guard !pathParts.contains(".."), pathParts.starts(with: baseParts) else { return nil }
        return pathParts.dropFirst(baseParts.count).joined(separator: "/")
    }

    private static func components(_ path: String) -> [Substring] {
        path.split(separator: "/").filter { $0 != "." }
    }

    private static func hierarchy(version: Int, path: String, mount: MountInfoEntry,
                                  notes: inout [String]) -> CgroupHierarchy {
        let mountPoint = mount.mountPoint
        if let directory = directory(for: path, mountRoot: mount.root, mountPoint: mountPoint) {
            return CgroupHierarchy(version: version, mountPoint: mountPoint, directory: directory,
                                   hierarchyPath: path, isOwnDirectory: true)
        }
        notes.append("cgroup v\(version) path \(path) is outside the mount root \(mount.root) at \(mountPoint); using the mount point as the process's cgroup")
        return CgroupHierarchy(version: version, mountPoint: mountPoint, directory: mountPoint,
                               hierarchyPath: path, isOwnDirectory: false)
    }
}
