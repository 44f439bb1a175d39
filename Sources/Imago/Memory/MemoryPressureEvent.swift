/// How close the process is to its memory limit.
public enum MemoryPressureLevel: Int, Sendable, Comparable, CustomStringConvertible {
    /// No pressure (also sent once pressure has subsided).
    case normal
    /// Reclaim has started or usage passed the warning fraction: drop what is cheap to rebuild.
    case warning
    /// Near or at the limit: drop everything that can be dropped, or be OOM-killed.
    case critical

    /// Orders by severity: `normal < warning < critical`.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The level's name in lowercase: `normal`, `warning` or `critical`.
    public var description: String {
        switch self {
        case .normal: return "normal"
        case .warning: return "warning"
        case .critical: return "critical"
        }
    }
}

/// Which source reported an event.
public enum MemoryPressureMechanism: String, Sendable, Equatable, CaseIterable {
    /// A PSI trigger on the cgroup's `memory.pressure` (cgroup v2).
    case cgroupV2PSI = "cgroup v2 memory.pressure"
    /// A rising `high`, `max`, `oom` or `oom_kill` count in the cgroup's `memory.events` (cgroup v2).
    case cgroupV2Events = "cgroup v2 memory.events"
    /// `memory.pressure_level` through `cgroup.event_control` (cgroup v1).
    case cgroupV1PressureLevel = "cgroup v1 memory.pressure_level"
    /// A `memory.usage_in_bytes` threshold through `cgroup.event_control` (cgroup v1).
    case cgroupV1UsageThreshold = "cgroup v1 usage threshold"
    /// A PSI trigger on /proc/pressure/memory (the whole system).
    case systemPSI = "/proc/pressure/memory"
    /// Usage compared with the limit at a fixed interval, where nothing above could be registered.
    case polling = "usage polling"
    /// No pressure event for the recovery interval and usage below the warning fraction.
    case subsided = "pressure subsided"
    /// `MemoryPressureMonitor.simulate(_:)`.
    case simulated = "simulated"
}

/// One change in memory pressure, as delivered to observers.
public struct MemoryPressureEvent: Sendable {
    /// How severe the pressure is now; `.normal` when it has subsided.
    public var level: MemoryPressureLevel
    /// The source that fired.
    public var mechanism: MemoryPressureMechanism
    /// When the monitor saw it.
    public var time: ContinuousClock.Instant
    /// Usage of the cgroup whose limit is `limit.bytes` (see `MemoryLimit.usageBytes(root:)`),
    /// or the process's resident memory without a memory cgroup; nil when unreadable.
    public var usageBytes: Int?
    /// The limit, read again for this event (a limit can change while running).
    public var limit: MemoryLimit

    /// An event with every field given: the monitor makes them, and so may a test or an
    /// application's own pressure source.
    public init(level: MemoryPressureLevel, mechanism: MemoryPressureMechanism, time: ContinuousClock.Instant,
                usageBytes: Int?, limit: MemoryLimit) {
        self.level = level
        self.mechanism = mechanism
        self.time = time
        self.usageBytes = usageBytes
        self.limit = limit
    }
}
