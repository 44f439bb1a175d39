import Foundation

/// Which cgroup interface a memory cgroup speaks.
public enum CgroupVersion: String, Sendable, Codable, Equatable {
    /// Legacy hierarchy: memory.limit_in_bytes, memory.oom_control, memory.max_usage_in_bytes.
    case v1
    /// Unified hierarchy: memory.max, memory.events, memory.peak.
    case v2
}

/// Why no memory cgroup can be made here; bench rows say "skipped: <reason>".
public struct CgroupUnavailable: Error, CustomStringConvertible, Sendable, Equatable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// The process's own memory cgroup: the parent under which the sandbox makes its children.
public struct MemoryCgroupLocation: Sendable, Equatable {
    public let version: CgroupVersion
    /// The cgroup's directory, e.g. "/sys/fs/cgroup/memory/process_api/ab12" (under the locator's root).
    public let directory: String
    /// The cgroup's path inside its hierarchy, e.g. "/process_api/ab12".
    public let hierarchyPath: String
}

/// Finds the process's own memory cgroup through /proc/self/cgroup and /proc/self/mountinfo,
/// never by a hard-coded path: distributions, containers and CI runners mount cgroups in
/// different places, and a process usually sits deep inside a hierarchy it may only write
/// below its own node.
public struct MemoryCgroupLocator: Sendable {
    /// File-system root the /proc and cgroup paths are read under (default "/"; tests pass a
    /// temporary directory holding fake files).
    public let root: String

    public init(root: String = "/") {
        self.root = root
    }

    /// The v1 memory hierarchy when the memory controller is bound there (a controller is bound
    /// to one hierarchy at a time), else the v2 hierarchy when it offers the memory controller.
    public func locate() -> Result<MemoryCgroupLocation, CgroupUnavailable> {
        #if !os(Linux)
        return .failure(CgroupUnavailable("memory cgroups exist only on Linux"))
        #else
        guard let cgroupText = read("/proc/self/cgroup") else {
            return .failure(CgroupUnavailable("cannot read /proc/self/cgroup"))
        }
        guard let mountText = read("/proc/self/mountinfo") else {
            return .failure(CgroupUnavailable("cannot read /proc/self/mountinfo"))
        }
        let memberships = ProcCgroupFiles.memberships(cgroupText)
        let mounts = ProcCgroupFiles.mounts(mountText)
        if let v1 = memberships.first(where: { $0.hierarchyID != 0 && $0.controllers.contains("memory") }) {
            return locateV1(v1, mounts: mounts)
        }
        if let v2 = memberships.first(where: { $0.hierarchyID == 0 }) {
            return locateV2(v2, mounts: mounts)
        }
        return .failure(CgroupUnavailable("no memory controller in /proc/self/cgroup"))
        #endif
    }

    func locateV1(_ membership: ProcCgroupFiles.Membership, mounts: [ProcCgroupFiles.Mount]) -> Result<MemoryCgroupLocation, CgroupUnavailable> {
        let candidates = mounts.filter { $0.fileSystemType == "cgroup" && $0.superOptions.contains("memory") }
        guard !candidates.isEmpty else {
            return .failure(CgroupUnavailable("cgroup v1 memory hierarchy is not mounted (no cgroup mount with the memory option)"))
        }
        return directory(of: membership.path, in: candidates, version: .v1)
    }

    func locateV2(_ membership: ProcCgroupFiles.Membership, mounts: [ProcCgroupFiles.Mount]) -> Result<MemoryCgroupLocation, CgroupUnavailable> {
        let candidates = mounts.filter { $0.fileSystemType == "cgroup2" }
        guard !candidates.isEmpty else { return .failure(CgroupUnavailable("no memory controller: cgroup v2 is not mounted")) }
        let located = directory(of: membership.path, in: candidates, version: .v2)
        guard case .success(let location) = located else { return located }
        // `location.directory` already lies under `root`.
        let text = try? String(contentsOfFile: location.directory + "/cgroup.controllers", encoding: .utf8)
        let controllers = text?.split(whereSeparator: \.isWhitespace) ?? []
        guard controllers.contains("memory") else {
            return .failure(CgroupUnavailable("cgroup v2: memory controller not offered in \(location.directory)/cgroup.controllers"))
        }
        return located
    }

    /// The directory of `path` under the first mount that contains it. Refuses the hierarchy's
    /// root: the bench only ever makes children below its own, non-root cgroup.
    func directory(of path: String, in mounts: [ProcCgroupFiles.Mount],
                   version: CgroupVersion) -> Result<MemoryCgroupLocation, CgroupUnavailable> {
        // Prefer a mount of the whole hierarchy; a bind mount of a sub-tree works too.
        let ordered = mounts.filter { $0.root == "/" } + mounts.filter { $0.root != "/" }
        for mount in ordered {
            guard let relative = ProcCgroupFiles.path(path, relativeTo: mount.root) else { continue }
            if path == "/" {
                return .failure(CgroupUnavailable("cgroup \(version.rawValue): the process is in the root memory cgroup; the bench makes children only below a non-root cgroup"))
            }
            let base = mount.mountPoint == "/" ? "" : mount.mountPoint
            let directory = prefixed(base + (relative == "/" ? "" : relative))
            guard FileManager.default.fileExists(atPath: directory) else {
                return .failure(CgroupUnavailable("cgroup \(version.rawValue): \(directory) does not exist"))
            }
            return .success(MemoryCgroupLocation(version: version, directory: directory, hierarchyPath: path))
        }
        return .failure(CgroupUnavailable("cgroup \(version.rawValue): no mount contains \(path)"))
    }

    private func prefixed(_ path: String) -> String {
        root == "/" ? path : (root.hasSuffix("/") ? String(root.dropLast()) : root) + path
    }

    private func read(_ path: String) -> String? {
        try? String(contentsOfFile: prefixed(path), encoding: .utf8)
    }
}
