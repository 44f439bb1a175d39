import Foundation

/// How a process run inside a sandbox cgroup ended, and what the cgroup saw meanwhile.
public struct CgroupOutcome: Sendable, Equatable {
    public let version: CgroupVersion
    /// The memory limit the cgroup had, or nil when it had none.
    public let limitBytes: Int?
    /// The child's exit status, or nil when a signal ended it.
    public let exitStatus: Int32?
    /// The signal that ended the child, or nil when it exited.
    public let signal: Int32?
    /// The child outlived the sandbox's timeout and was killed (SIGKILL, not the OOM killer).
    public let timedOut: Bool
    /// Processes the kernel's OOM killer killed in the cgroup (v1 `memory.oom_control`
    /// `oom_kill`, v2 `memory.events` `oom_kill`; the cgroup is new, so this is the run's count).
    public let oomKills: Int
    /// v1 `under_oom`: the cgroup was still out of memory when read (nil on v2).
    public let underOOM: Bool?
    /// Highest memory charged to the cgroup (v1 `memory.max_usage_in_bytes`, v2 `memory.peak`),
    /// or nil when the kernel does not report it (v2 before Linux 5.19).
    public let peakBytes: Int?
    /// Times a charge hit the limit (v1 `memory.failcnt` plus `memory.memsw.failcnt`, v2
    /// `memory.events` `max`), or nil when unreadable.
    public let limitHits: Int?
    /// v2 `memory.events` `high` (nil on v1; 0 unless a memory.high was set).
    public let highEvents: Int?
    /// Everything the child wrote to standard output and standard error.
    public let standardOutput: Data
    public let standardError: Data

    /// The child died of SIGKILL while the OOM killer was killing in its cgroup.
    public var killedByOOM: Bool { signal == SIGKILL && oomKills > 0 && !timedOut }

    public var end: ChildEnd { ChildEnd(exitStatus: exitStatus, signal: signal, timedOut: timedOut) }
}

/// Reads the counter files the kernel keeps per memory cgroup.
enum CgroupCounterFiles {
    /// `key value` lines (memory.oom_control, memory.events, memory.stat) as a dictionary.
    static func keyedValues(_ text: String) -> [String: Int] {
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let value = Int(fields[1]) { values[String(fields[0])] = value }
        }
        return values
    }

    /// A file holding one integer (memory.max_usage_in_bytes, memory.peak, memory.failcnt).
    static func integer(_ text: String?) -> Int? {
        text.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The cgroup's counters once its process is gone; the exit fields come from the caller.
    static func outcome(directory: String, version: CgroupVersion, limitBytes: Int?, exitStatus: Int32?,
                        signal: Int32?, timedOut: Bool, standardOutput: Data, standardError: Data) -> CgroupOutcome {
        let read = { (name: String) in try? String(contentsOfFile: directory + "/" + name, encoding: .utf8) }
        switch version {
        case .v1:
            let control = keyedValues(read("memory.oom_control") ?? "")
            let hits = integer(read("memory.failcnt")).map { $0 + (integer(read("memory.memsw.failcnt")) ?? 0) }
            return CgroupOutcome(version: .v1, limitBytes: limitBytes, exitStatus: exitStatus, signal: signal, timedOut: timedOut,
                                 oomKills: control["oom_kill"] ?? 0, underOOM: control["under_oom"].map { $0 != 0 },
                                 peakBytes: integer(read("memory.max_usage_in_bytes")), limitHits: hits, highEvents: nil,
                                 standardOutput: standardOutput, standardError: standardError)
        case .v2:
            let events = keyedValues(read("memory.events") ?? "")
            return CgroupOutcome(version: .v2, limitBytes: limitBytes, exitStatus: exitStatus, signal: signal, timedOut: timedOut,
                                 oomKills: events["oom_kill"] ?? 0, underOOM: nil, peakBytes: integer(read("memory.peak")),
                                 limitHits: events["max"], highEvents: events["high"],
                                 standardOutput: standardOutput, standardError: standardError)
        }
    }
}
