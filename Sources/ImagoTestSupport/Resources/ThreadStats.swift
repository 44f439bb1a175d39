import Foundation

/// One thread's scheduling counters from /proc/self/task/<tid>: how often it woke and how much
/// CPU it used, to show that an idle watcher costs nothing.
public struct ThreadStats: Sendable {
    /// Times the thread gave up the CPU itself (status `voluntary_ctxt_switches`): its wake-ups.
    public var voluntarySwitches: Int
    /// Times the scheduler took the CPU from it (status `nonvoluntary_ctxt_switches`).
    public var involuntarySwitches: Int
    /// schedstat's first field: time spent on the CPU.
    public var cpuNanoseconds: Int

    /// The counters of thread `threadID` of this process, or nil when it does not exist (any more).
    public static func read(threadID: Int32) -> ThreadStats? {
        let base = "/proc/self/task/\(threadID)/"
        guard let status = try? String(contentsOfFile: base + "status", encoding: .utf8),
              let schedstat = try? String(contentsOfFile: base + "schedstat", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { Int($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)) }
        }
        guard let voluntary = field("voluntary_ctxt_switches"), let involuntary = field("nonvoluntary_ctxt_switches"),
              let cpu = schedstat.split(separator: " ").first.flatMap({ Int($0) }) else { return nil }
        return ThreadStats(voluntarySwitches: voluntary, involuntarySwitches: involuntary, cpuNanoseconds: cpu)
    }

    /// The thread's name (comm).
    public static func name(threadID: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/self/task/\(threadID)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
