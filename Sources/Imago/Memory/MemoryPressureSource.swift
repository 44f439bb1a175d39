#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One registered kernel notification: a descriptor the watcher polls, and what its readiness
/// means. Owned by the watcher thread, which closes it.
struct MemoryPressureSource {
    enum Kind: Equatable {
        /// A PSI trigger (cgroup `memory.pressure` or /proc/pressure/memory): POLLPRI when the
        /// stall threshold was exceeded within the window; nothing to read.
        case psiTrigger(MemoryPressureLevel)
        /// `memory.events`, kept open: POLLPRI|POLLERR when a count changed. It must be reread
        /// after each notification, or kernfs reports it ready forever.
        case memoryEvents(counts: [String: Int])
        /// An eventfd registered for `memory.pressure_level`: readable when the level occurred.
        case pressureLevel(MemoryPressureLevel)
        /// An eventfd registered for a `memory.usage_in_bytes` threshold: readable when usage
        /// crossed it, upwards or downwards, so the level comes from the usage read afterwards.
        case usageThreshold(MemoryPressureLevel, bytes: Int)
    }

    /// What one readiness of the descriptor amounts to.
    enum Outcome: Equatable {
        /// Pressure at this level.
        case level(MemoryPressureLevel)
        /// Usage crossed a threshold: classify the usage now; `hint` if it cannot be read.
        case classifyUsage(hint: MemoryPressureLevel)
        /// Nothing (a spurious wake-up, or a count that did not rise).
        case nothing
        /// The descriptor is dead (its cgroup was removed, the trigger was refused): close it.
        case gone
    }

    let fd: Int32
    let mechanism: MemoryPressureMechanism
    var kind: Kind
    /// The cgroup directory it watches (nil for /proc/pressure/memory), prefixed with the root,
    /// to tell a removed cgroup from an event.
    let directory: String?
    /// For `activeMechanisms`: mechanism, file and threshold.
    let description: String

    var pollEvents: Int16 {
        switch kind {
        case .psiTrigger, .memoryEvents: return Int16(POLLPRI)
        case .pressureLevel, .usageThreshold: return Int16(POLLIN)
        }
    }

    /// Whether it watches the process's cgroup (as opposed to the whole system).
    var watchesCgroup: Bool { mechanism != .systemPSI }

    /// Consumes one readiness (`revents` from poll) and says what it meant.
    mutating func consume(_ revents: Int16) -> Outcome {
        let broken = Int16(POLLNVAL) | Int16(POLLHUP)
        if revents & Int16(POLLNVAL) != 0 { return .gone }
        if let directory, !SmallFile.exists(directory) { return .gone }
        switch kind {
        case .psiTrigger(let level):
            // PSI reports POLLERR only for a trigger it no longer has.
            if revents & (Int16(POLLERR) | broken) != 0 { return .gone }
            return revents & Int16(POLLPRI) != 0 ? .level(level) : .nothing
        case .memoryEvents(let old):
            guard case .success(let text) = SmallFile.reread(fd) else { return .gone }
            let new = Self.parseCounts(text)
            kind = .memoryEvents(counts: new)
            let rose = { (key: String) in (new[key] ?? 0) > (old[key] ?? 0) }
            // `max` counts reclaim at memory.max, routine while page cache fills up to the
            // limit: a warning. Only an OOM is critical.
            if rose("oom") || rose("oom_kill") { return .level(.critical) }
            return rose("high") || rose("max") ? .level(.warning) : .nothing
        case .pressureLevel(let level):
            return drainEventCounter() ? .level(level) : (revents & broken != 0 ? .gone : .nothing)
        case .usageThreshold(let level, _):
            return drainEventCounter() ? .classifyUsage(hint: level) : (revents & broken != 0 ? .gone : .nothing)
        }
    }

    /// Reads the eventfd's 8-byte counter, which resets it; false when it was zero.
    private func drainEventCounter() -> Bool {
        var counter: UInt64 = 0
        let count = withUnsafeMutableBytes(of: &counter) { read(fd, $0.baseAddress, 8) }
        return count == 8 && counter > 0
    }

    /// "low 0\nhigh 3\nmax 0\noom 0\noom_kill 0\n" as a dictionary; malformed lines are skipped.
    static func parseCounts(_ text: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
        }
        return counts
    }

    func close() { _ = closeDescriptor(fd) }
}

/// `close(2)`, under a name the struct's `close()` does not shadow.
func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
