import Foundation

/// The machine's CPU time and this run's own share of it at one instant, from `/proc/stat` and
/// `/proc/self/stat`; two of them (``CPUSnapshot/activity(since:wallSeconds:)``) say how much
/// CPU other processes and the hypervisor took while a run measured.
///
/// Why not the load average alone: it is a decaying average of runnable threads, so a run
/// started right after another (an A/A series, CI's bench steps) begins with the previous run's
/// own load in it and was called noisy on a quiet machine; and it cannot tell the bench's own
/// threads from anyone else's. CPU time can: the machine's busy time less this process's and
/// its finished children's (the peers' interpreters, the cold-process decodes) is other work.
public struct CPUSnapshot: Sendable, Equatable {
    /// Seconds the CPUs spent busy (user, nice, system, irq, softirq), summed over CPUs.
    public var busy: Double
    /// Seconds a CPU of this machine was ready to run but the hypervisor ran something else
    /// (`steal`), summed over CPUs.
    public var stolen: Double
    /// Seconds of every kind (busy, idle, iowait, steal), summed over CPUs.
    public var total: Double
    /// Seconds this process and the children it has waited for used (utime, stime, cutime, cstime).
    public var own: Double

    /// Now; nil where `/proc` cannot be read (not Linux).
    public static func now() -> CPUSnapshot? {
        guard let machine = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let process = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        else { return nil }
        return parse(procStat: machine, selfStat: process, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// From the texts of `/proc/stat` and `/proc/self/stat`, whose times are in clock ticks;
    /// nil when either is not what the kernel writes.
    static func parse(procStat: String, selfStat: String, ticksPerSecond: Double) -> CPUSnapshot? {
        guard ticksPerSecond > 0,
              let line = procStat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
        else { return nil }
        // cpu user nice system idle iowait irq softirq steal [guest guest_nice: already in user, nice]
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return nil }
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]
        // The command (field 2) is in parentheses and may hold spaces: fields count from after it.
        guard let close = selfStat.lastIndex(of: ")") else { return nil }
        let fields = selfStat[selfStat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, so utime..cstime (14..17) are at 11..14 here.
        guard fields.count > 14 else { return nil }
        let times = fields[11...14].compactMap { Double($0) }
        guard times.count == 4 else { return nil }
        return CPUSnapshot(busy: busy / ticksPerSecond, stolen: ticks[7] / ticksPerSecond,
                           total: (busy + ticks[3] + ticks[4] + ticks[7]) / ticksPerSecond,
                           own: times.reduce(0, +) / ticksPerSecond)
    }

    /// What else ran between `start` and this snapshot, `wallSeconds` apart.
    public func activity(since start: CPUSnapshot, wallSeconds: Double) -> RunNoise.OtherActivity? {
        let total = self.total - start.total
        guard wallSeconds > 0, total > 0 else { return nil }
        let others = max(0, (busy - start.busy) - (own - start.own))
        return RunNoise.OtherActivity(otherCores: others / wallSeconds, stolenShare: (stolen - start.stolen) / total)
    }
}
