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
        MemoryCgroupChild.removeStale(under: location, namePrefix: Self.namePrefix)
        let child = try MemoryCgroupChild.make(under: location, namePrefix: Self.namePrefix, limitBytes: limitBytes)
        let outcome: CgroupOutcome
        do {
            outcome = try launch(executable, arguments, in: child, timeout: timeout)
        } catch {
            try? child.remove()
            throw error
        }
        try child.remove()
        return outcome
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

    private func launch(_ executable: String, _ arguments: [String], in child: MemoryCgroupChild,
                        timeout: Duration) throws -> CgroupOutcome {
        let command = child.joiningCommand(executable, arguments)
        let ending = try CapturedRun.run(command.executable, command.arguments, timeout: timeout)
        if ending.exitStatus == MemoryCgroupChild.joinFailedStatus {
            let message = String(decoding: ending.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw CgroupUnavailable("cannot move a process into \(child.location.directory): \(message)")
        }
        return child.outcome(exitStatus: ending.exitStatus, signal: ending.signal, timedOut: ending.timedOut,
                             standardOutput: ending.standardOutput, standardError: ending.standardError)
    }
}
