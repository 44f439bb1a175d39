import Foundation

/// One child memory cgroup made below a parent (the process's own memory cgroup, never the
/// hierarchy's root: `MemoryCgroupLocator` refuses that), with an optional memory limit, until
/// ``remove()``. ``MemoryCgroupSandbox`` runs each workload in one; the tests use one directly
/// where they must watch the cgroup while its process runs.
public struct MemoryCgroupChild: Sendable {
    /// The child cgroup itself (its `hierarchyPath` is the parent's plus its name).
    public let location: MemoryCgroupLocation
    /// The memory limit written at creation, or nil when it has none.
    public let limitBytes: Int?
    /// v2: whether making this child enabled the memory controller in the parent's
    /// `cgroup.subtree_control`, so ``remove()`` disables it again.
    private let enabledControllerInParent: Bool
    private let parent: MemoryCgroupLocation

    /// Makes `<namePrefix><pid>-<random>` below `parent` and writes `limitBytes` (nil: no limit,
    /// to measure the peak only). Throws `CgroupUnavailable` when the cgroup cannot be made,
    /// given a memory controller or limited; nothing is left behind then.
    public static func make(under parent: MemoryCgroupLocation, namePrefix: String,
                            limitBytes: Int?) throws -> MemoryCgroupChild {
        let enabled = try enableMemoryControllerForChildren(of: parent)
        let name = namePrefix + "\(getpid())-" + UUID().uuidString.prefix(8).lowercased()
        let child = MemoryCgroupChild(
            location: MemoryCgroupLocation(version: parent.version, directory: parent.directory + "/" + name,
                                           hierarchyPath: (parent.hierarchyPath == "/" ? "" : parent.hierarchyPath) + "/" + name,
                                           mountPoint: parent.mountPoint),
            limitBytes: limitBytes, enabledControllerInParent: enabled, parent: parent)
        if mkdir(child.location.directory, 0o755) != 0 {
            let reason = CgroupFS.errorText(errno)
            child.disableParentController()
            throw CgroupUnavailable("cannot create a child cgroup in \(parent.directory): \(reason)")
        }
        do {
            try child.configure()
        } catch {
            try? child.remove()
            throw error
        }
        return child
    }

    /// Removes children of `parent` named `<namePrefix><pid>-…` whose creating process no longer
    /// exists (one killed mid-run cannot clean up after itself); a child still holding
    /// processes is left alone.
    public static func removeStale(under parent: MemoryCgroupLocation, namePrefix: String) {
        CgroupFS.removeStaleChildren(of: parent.directory, prefix: namePrefix)
    }

    /// The control file a process joins the cgroup through (its pid written there).
    public var processesFile: String { location.directory + "/cgroup.procs" }

    /// Exit status of the joining shell of ``joiningCommand(_:_:)`` when it could not write its
    /// pid into ``processesFile``.
    public static let joinFailedStatus: Int32 = 125

    /// `/bin/sh` and its arguments for running `executable arguments` inside this cgroup: the
    /// shell moves itself in, then becomes the workload, so the workload's first instruction
    /// already runs (and is charged) inside: not one page of it is charged elsewhere. The paths
    /// travel as arguments ($0 and "$@"), never spliced into the script. The shell exits with
    /// ``joinFailedStatus`` when it cannot join.
    public func joiningCommand(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        let script = "echo $$ > \"$0\" || exit \(Self.joinFailedStatus); exec \"$@\""
        return ("/bin/sh", ["-c", script, processesFile, executable] + arguments)
    }

    /// The cgroup's counters (OOM kills, peak, limit hits) with how its process ended; read
    /// once the process is gone and before ``remove()``.
    public func outcome(exitStatus: Int32?, signal: Int32?, timedOut: Bool,
                        standardOutput: Data, standardError: Data) -> CgroupOutcome {
        CgroupCounterFiles.outcome(directory: location.directory, version: location.version, limitBytes: limitBytes,
                                   exitStatus: exitStatus, signal: signal, timedOut: timedOut,
                                   standardOutput: standardOutput, standardError: standardError)
    }

    /// Removes the cgroup (killing what is still inside: only this cgroup's own processes can
    /// be) and, on v2, disables the memory controller in the parent again if making it enabled
    /// it. Throws if the cgroup is still there after about 2 s.
    public func remove() throws {
        defer { disableParentController() }
        try CgroupFS.remove(location.directory)
    }

    private func disableParentController() {
        if enabledControllerInParent { _ = CgroupFS.writeControl("-memory", to: parent.directory + "/cgroup.subtree_control") }
    }

    /// v2 only: a child gets a memory controller only if its parent lists `memory` in
    /// `cgroup.subtree_control`. Returns whether this call enabled it.
    private static func enableMemoryControllerForChildren(of parent: MemoryCgroupLocation) throws -> Bool {
        guard parent.version == .v2 else { return false }
        let control = parent.directory + "/cgroup.subtree_control"
        let enabled = (try? String(contentsOfFile: control, encoding: .utf8))?.split(whereSeparator: \.isWhitespace) ?? []
        if enabled.contains("memory") { return false }
        guard let error = CgroupFS.writeControl("+memory", to: control) else { return true }
        if error == EBUSY {
            throw CgroupUnavailable("cgroup v2: cannot enable the memory controller below \(parent.directory): it holds processes "
                                    + "(this one included), and the no-internal-process rule forbids controllers for its children then")
        }
        throw CgroupUnavailable("cgroup v2: cannot enable the memory controller in \(control): \(CgroupFS.errorText(error))")
    }

    /// Writes the limit. v1 needs memory.limit_in_bytes ≤ memory.memsw.limit_in_bytes at every
    /// moment, so the memory limit is lowered first and the memory+swap limit second; both equal
    /// means swap cannot stretch the limit (v2: memory.swap.max 0 for the same reason).
    private func configure() throws {
        let file = { (name: String) in location.directory + "/" + name }
        var writes: [(String, String)] = []
        switch location.version {
        case .v1:
            // A parent with oom_kill_disable would make an out-of-memory child hang instead of dying.
            _ = CgroupFS.writeControl("0", to: file("memory.oom_control"))
            if let limitBytes {
                writes.append(("memory.limit_in_bytes", "\(limitBytes)"))
                if FileManager.default.fileExists(atPath: file("memory.memsw.limit_in_bytes")) {
                    writes.append(("memory.memsw.limit_in_bytes", "\(limitBytes)"))
                }
            }
        case .v2:
            if let limitBytes {
                writes.append(("memory.max", "\(limitBytes)"))
                if FileManager.default.fileExists(atPath: file("memory.swap.max")) { writes.append(("memory.swap.max", "0")) }
            }
        }
        for (name, value) in writes {
            if let error = CgroupFS.writeControl(value, to: file(name)) {
                throw CgroupUnavailable("cannot write \(value) to \(file(name)): \(CgroupFS.errorText(error))")
            }
        }
    }
}
