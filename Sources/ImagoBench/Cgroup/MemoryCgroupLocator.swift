import Foundation
@_spi(Cgroups) import Imago

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
    /// Where its hierarchy is mounted, e.g. "/sys/fs/cgroup/memory" (under the locator's root).
    public let mountPoint: String
}

/// The process's own memory cgroup, as Imago's `MemoryLimit` finds it (/proc/self/cgroup and
/// /proc/self/mountinfo, never a hard-coded path: distributions, containers and CI runners mount
/// cgroups in different places), checked for what the sandbox needs: a process usually sits
/// deep inside a hierarchy it may only write below its own node.
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
        let location = CgroupLocator.locate(root: root)
        if let v1 = location.v1 { return usable(v1, version: .v1) }
        guard let v2 = location.v2 else {
            let why = location.notes.isEmpty ? "no memory controller in /proc/self/cgroup" : location.notes.joined(separator: "; ")
            return .failure(CgroupUnavailable(why))
        }
        let located = usable(v2, version: .v2)
        guard case .success(let found) = located else { return located }
        let text = try? String(contentsOfFile: found.directory + "/cgroup.controllers", encoding: .utf8)
        guard (text?.split(whereSeparator: \.isWhitespace) ?? []).contains("memory") else {
            return .failure(CgroupUnavailable("cgroup v2: memory controller not offered in \(found.directory)/cgroup.controllers"))
        }
        return located
        #endif
    }

    /// Refuses the hierarchy's root (the bench only ever makes children below its own, non-root
    /// cgroup) and a cgroup the process cannot see.
    func usable(_ hierarchy: CgroupHierarchy, version: CgroupVersion) -> Result<MemoryCgroupLocation, CgroupUnavailable> {
        guard hierarchy.hierarchyPath != "/" else {
            return .failure(CgroupUnavailable("cgroup \(version.rawValue): the process is in the root memory cgroup; the bench makes children only below a non-root cgroup"))
        }
        guard hierarchy.isOwnDirectory else {
            return .failure(CgroupUnavailable("cgroup \(version.rawValue): no mount contains \(hierarchy.hierarchyPath)"))
        }
        let directory = prefixed(hierarchy.directory)
        guard FileManager.default.fileExists(atPath: directory) else {
            return .failure(CgroupUnavailable("cgroup \(version.rawValue): \(directory) does not exist"))
        }
        return .success(MemoryCgroupLocation(version: version, directory: directory, hierarchyPath: hierarchy.hierarchyPath,
                                             mountPoint: prefixed(hierarchy.mountPoint)))
    }

    private func prefixed(_ path: String) -> String {
        root == "/" ? path : (root.hasSuffix("/") ? String(root.dropLast()) : root) + path
    }
}
