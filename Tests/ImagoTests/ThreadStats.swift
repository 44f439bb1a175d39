import Foundation

/// One thread's scheduling counters from /proc/self/task/<tid>: how often it woke and how much
/// CPU it used, to show that an idle watcher costs nothing.
struct ThreadStats {
    var voluntarySwitches: Int
    var involuntarySwitches: Int
    /// schedstat's first field: time spent on the CPU.
    var cpuNanoseconds: Int

    static func read(threadID: Int32) -> ThreadStats? {
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
    static func name(threadID: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/self/task/\(threadID)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
