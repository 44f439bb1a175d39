import Foundation

/// Runs a process in a fresh child memory cgroup of this process's own memory cgroup, with a
/// memory limit, and reports what the kernel saw: OOM kills, the peak charge, limit hits.
///
/// Per run: make a uniquely named child cgroup, write the limit, start the process already
/// inside it (a shell joins the cgroup and then execs the workload, so not one page of the
/// workload is charged elsewhere), wait, read the counters, remove the cgroup (also on errors).
public struct MemoryCgroupSandbox: Sendable {
    /// The parent cgroup (this process's own).
    public let location: MemoryCgroupLocation

    /// Child cgroups are named `<namePrefix><pid>-<random>`, so stale ones of a killed bench
    /// can be recognised and removed.
    static let namePrefix = "imago-bench-"

    public init(location: MemoryCgroupLocation) {
        self.location = location
    }

    /// A sandbox under this process's own memory cgroup, or why there cannot be one.
    public static func make(locator: MemoryCgroupLocator = MemoryCgroupLocator()) -> Result<MemoryCgroupSandbox, CgroupUnavailable> {
        locator.locate().map(MemoryCgroupSandbox.init(location:))
    }

    /// Runs `executable arguments` inside a new child cgroup limited to `limitBytes` (nil: no
    /// limit, to measure the peak only) and returns how it ended. Blocks the calling thread;
    /// see `runDetached` for async callers. Throws `CgroupUnavailable` when the cgroup cannot
    /// be made, joined or limited; any other error means the cgroup could not be removed.
    ///
    /// - Parameter timeout: the process is killed after this long (default 20 minutes).
    public func run(_ executable: String, _ arguments: [String], limitBytes: Int?,
                    timeout: Duration = .seconds(1200)) throws -> CgroupOutcome {
        #if !os(Linux)
        throw CgroupUnavailable("memory cgroups exist only on Linux")
        #else
        CgroupFS.removeStaleChildren(of: location.directory, prefix: Self.namePrefix)
        let enabledHere = try enableMemoryControllerForChildren()
        defer { if enabledHere { _ = CgroupFS.writeControl("-memory", to: location.directory + "/cgroup.subtree_control") } }
        let directory = location.directory + "/" + Self.namePrefix + "\(getpid())-" + UUID().uuidString.prefix(8).lowercased()
        if mkdir(directory, 0o755) != 0 {
            throw CgroupUnavailable("cannot create a child cgroup in \(location.directory): \(CgroupFS.errorText(errno))")
        }
        var outcome: CgroupOutcome?
        do {
            try configure(directory, limitBytes: limitBytes)
            outcome = try launch(executable, arguments, in: directory, limitBytes: limitBytes, timeout: timeout)
        } catch {
            try? CgroupFS.remove(directory)
            throw error
        }
        try CgroupFS.remove(directory)
        return outcome!
        #endif
    }

    /// `run` on a thread of its own, so the caller's executor stays free (the bench's loopback
    /// server and progress display keep running while the child works).
    public func runDetached(_ executable: String, _ arguments: [String], limitBytes: Int?,
                            timeout: Duration = .seconds(1200)) async throws -> CgroupOutcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try run(executable, arguments, limitBytes: limitBytes, timeout: timeout) })
            }
        }
    }

    /// v2 only: a child gets a memory controller only if its parent lists `memory` in
    /// `cgroup.subtree_control`. Returns whether this call enabled it (so it is disabled again).
    private func enableMemoryControllerForChildren() throws -> Bool {
        guard location.version == .v2 else { return false }
        let control = location.directory + "/cgroup.subtree_control"
        let enabled = (try? String(contentsOfFile: control, encoding: .utf8))?.split(whereSeparator: \.isWhitespace) ?? []
        if enabled.contains("memory") { return false }
        guard let error = CgroupFS.writeControl("+memory", to: control) else { return true }
        if error == EBUSY {
            throw CgroupUnavailable("cgroup v2: cannot enable the memory controller below \(location.directory): it holds processes "
                                    + "(this one included), and the no-internal-process rule forbids controllers for its children then")
        }
        throw CgroupUnavailable("cgroup v2: cannot enable the memory controller in \(control): \(CgroupFS.errorText(error))")
    }

    /// Writes the limit. v1 needs memory.limit_in_bytes ≤ memory.memsw.limit_in_bytes at every
    /// moment, so the memory limit is lowered first and the memory+swap limit second; both equal
    /// means swap cannot stretch the limit (v2: memory.swap.max 0 for the same reason).
    private func configure(_ directory: String, limitBytes: Int?) throws {
        let file = { (name: String) in directory + "/" + name }
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

    /// Exit status of the joining shell when it could not write its pid into cgroup.procs.
    static let joinFailedStatus: Int32 = 125

    private func launch(_ executable: String, _ arguments: [String], in directory: String, limitBytes: Int?,
                        timeout: Duration) throws -> CgroupOutcome {
        // The shell moves itself into the cgroup, then becomes the workload: race-free, since
        // the workload's first instruction already runs inside the cgroup. The paths travel as
        // arguments ($0 and "$@"), never spliced into the script.
        let script = "echo $$ > \"$0\" || exit \(Self.joinFailedStatus); exec \"$@\""
        let ending = try CapturedRun.run("/bin/sh", ["-c", script, directory + "/cgroup.procs", executable] + arguments,
                                         timeout: timeout)
        if ending.exitStatus == Self.joinFailedStatus {
            let message = String(decoding: ending.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw CgroupUnavailable("cannot move a process into \(directory): \(message)")
        }
        return CgroupCounterFiles.outcome(directory: directory, version: location.version, limitBytes: limitBytes,
                                          exitStatus: ending.exitStatus, signal: ending.signal, timedOut: ending.timedOut,
                                          standardOutput: ending.standardOutput, standardError: ending.standardError)
    }
}
