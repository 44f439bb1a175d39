#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the machine offered: the registered sources, whether the watcher must poll usage, and
/// what failed (registration failures fall through to the next source).
struct MemoryPressureRegistration {
    var sources: [MemoryPressureSource] = []
    var polling = false
    var failures: [String] = []

    /// One line per active mechanism, for `MemoryPressureMonitor.activeMechanisms`.
    func descriptions(pollingInterval: Duration) -> [String] {
        sources.map(\.description) + (polling ? ["\(MemoryPressureMechanism.polling.rawValue) every \(pollingInterval)"] : [])
    }

    func closeAll() { sources.forEach { $0.close() } }
}

/// Registers the kernel notifications, in order of preference:
/// 1. cgroup v2: PSI triggers on the cgroup's `memory.pressure`, and `memory.events`;
/// 2. cgroup v1: `memory.pressure_level` (medium, critical) and usage thresholds on the
///    limiting cgroup's `memory.usage_in_bytes`, both through `cgroup.event_control`;
/// 3. only when no cgroup source could be registered: PSI triggers on /proc/pressure/memory;
/// 4. usage polling when nothing could be registered, or when a cgroup limit is set and only
///    the system-wide PSI watches it.
/// Registration runs on the caller's thread (a few small writes), so `activeMechanisms` is
/// known as soon as the first observer is added.
enum MemoryPressureRegistrar {
    static func register(root: String, location: CgroupLocation, limit: MemoryLimit,
                         configuration: MemoryPressureMonitor.Configuration) -> MemoryPressureRegistration {
        var registration = MemoryPressureRegistration()
        #if os(Linux)
        // The unified hierarchy's root (a hybrid host like this one: "0::/") or a cgroup
        // without the memory controller has a memory.pressure too, but it measures the whole
        // system, not the process's cgroup: that is the system-PSI fallback's job.
        if let v2 = location.v2, v2.hierarchyPath != "/",
           hasMemoryController(SmallFile.join(root, v2.directory)) {
            let directory = SmallFile.join(root, v2.directory)
            for (trigger, level) in [(configuration.psiWarningTrigger, MemoryPressureLevel.warning),
                                     (configuration.psiCriticalTrigger, .critical)] {
                addPSITrigger(file: SmallFile.join(directory, "memory.pressure"), trigger: trigger, level: level,
                              mechanism: .cgroupV2PSI, directory: directory, to: &registration)
            }
            addMemoryEvents(directory: directory, to: &registration)
        }
        if let v1 = location.v1 {
            let directory = SmallFile.join(root, v1.directory)
            for (name, level) in [("medium", MemoryPressureLevel.warning), ("critical", .critical)] {
                addEventControl(directory: directory, target: "memory.pressure_level", argument: name,
                                kind: .pressureLevel(level), mechanism: .cgroupV1PressureLevel,
                                description: "\(name) → \(level)", to: &registration)
            }
            registerUsageThresholds(root: root, limit: limit, configuration: configuration, to: &registration)
        }
        // Stall time is the earliest sign of trouble: without the cgroup's own PSI, the
        // system's joins whatever else was registered (a v1 cgroup's reclaim stalls show there
        // too). In the pressure bench at 256 MiB, dropping it left kills in 2 of 6 runs.
        if !registration.sources.contains(where: { $0.mechanism == .cgroupV2PSI }) {
            for (trigger, level) in [(configuration.psiWarningTrigger, MemoryPressureLevel.warning),
                                     (configuration.psiCriticalTrigger, .critical)] {
                addPSITrigger(file: SmallFile.join(root, "/proc/pressure/memory"), trigger: trigger, level: level,
                              mechanism: .systemPSI, directory: nil, to: &registration)
            }
        }
        #endif
        let cgroupWatched = registration.sources.contains(where: \.watchesCgroup)
        registration.polling = registration.sources.isEmpty || (limit.source != .physicalMemory && !cgroupWatched)
        return registration
    }

    /// Whether a v2 cgroup directory has the memory controller (listed in its cgroup.controllers).
    static func hasMemoryController(_ directory: String) -> Bool {
        guard case .success(let text) = SmallFile.read(SmallFile.join(directory, "cgroup.controllers")) else { return false }
        return text.split(whereSeparator: \.isWhitespace).contains("memory")
    }

    /// Usage thresholds at `warningFraction` and `criticalFraction` of a v1 limit, on the cgroup
    /// that sets it (its usage includes every descendant's, so it is the figure that reaches the
    /// limit). Nothing for a limit that is not a v1 cgroup's. The watcher calls this again when
    /// the limit changes.
    static func registerUsageThresholds(root: String, limit: MemoryLimit,
                                        configuration: MemoryPressureMonitor.Configuration,
                                        to registration: inout MemoryPressureRegistration) {
        #if os(Linux)
        guard limit.source == .cgroupV1, let limiting = limit.limitingDirectory else { return }
        let directory = SmallFile.join(root, limiting)
        for (fraction, level) in [(configuration.warningFraction, MemoryPressureLevel.warning),
                                  (configuration.criticalFraction, .critical)] {
            let bytes = Int(Double(limit.bytes) * fraction)
            addEventControl(directory: directory, target: "memory.usage_in_bytes", argument: String(bytes),
                            kind: .usageThreshold(level, bytes: bytes), mechanism: .cgroupV1UsageThreshold,
                            description: "\(Int(fraction * 100))% = \(bytes) bytes → \(level)", to: &registration)
        }
        #endif
    }

    #if os(Linux)
    /// Opens `file` read-write and writes the trigger ("some 200000 2000000"): the kernel keeps
    /// one trigger per open descriptor and drops it on close.
    private static func addPSITrigger(file: String, trigger: String, level: MemoryPressureLevel,
                                      mechanism: MemoryPressureMechanism, directory: String?,
                                      to registration: inout MemoryPressureRegistration) {
        let fd = open(file, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            registration.failures.append("\(file): open failed (\(String(cString: strerror(errno))))")
            return
        }
        // The kernel overwrites the last byte written with a NUL: without one of our own, the
        // window's last digit is cut ("2000000" → "200000", below PSI's 500 ms minimum: EINVAL).
        if let error = SmallFile.write(trigger + "\0", to: fd) {
            registration.failures.append("\(file): trigger \"\(trigger)\" refused (\(String(cString: strerror(error))))")
            _ = closeDescriptor(fd)
            return
        }
        registration.sources.append(MemoryPressureSource(
            fd: fd, mechanism: mechanism, kind: .psiTrigger(level), directory: directory,
            description: "\(mechanism.rawValue) \"\(trigger)\" → \(level) at \(file)"))
    }

    /// Keeps `memory.events` open after a first read (the baseline counts).
    private static func addMemoryEvents(directory: String, to registration: inout MemoryPressureRegistration) {
        let file = SmallFile.join(directory, "memory.events")
        guard SmallFile.exists(file) else { return }   // no memory controller in this hierarchy
        let fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0, case .success(let text) = SmallFile.reread(fd) else {
            registration.failures.append("\(file): unreadable")
            if fd >= 0 { _ = closeDescriptor(fd) }
            return
        }
        registration.sources.append(MemoryPressureSource(
            fd: fd, mechanism: .cgroupV2Events, kind: .memoryEvents(counts: MemoryPressureSource.parseCounts(text)),
            directory: directory,
            description: "\(MemoryPressureMechanism.cgroupV2Events.rawValue) high → warning, max/oom → critical at \(file)"))
    }

    /// cgroup v1's notification API: write "<eventfd> <fd of target> <argument>" to
    /// `cgroup.event_control`. Only the eventfd is kept: the kernel holds what it needs, and
    /// closing the eventfd unregisters.
    private static func addEventControl(directory: String, target: String, argument: String,
                                        kind: MemoryPressureSource.Kind, mechanism: MemoryPressureMechanism,
                                        description: String, to registration: inout MemoryPressureRegistration) {
        let targetFile = SmallFile.join(directory, target)
        let controlFile = SmallFile.join(directory, "cgroup.event_control")
        let eventFD = systemEventFD(0, eventFDCloseOnExec | eventFDNonBlocking)
        guard eventFD >= 0 else {
            registration.failures.append("eventfd failed (\(String(cString: strerror(errno))))")
            return
        }
        let targetFD = open(targetFile, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        let controlFD = open(controlFile, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        defer {
            if targetFD >= 0 { _ = closeDescriptor(targetFD) }
            if controlFD >= 0 { _ = closeDescriptor(controlFD) }
        }
        var failure: String?
        if targetFD < 0 {
            failure = "\(targetFile): open failed (\(String(cString: strerror(errno))))"
        } else if controlFD < 0 {
            failure = "\(controlFile): open failed (\(String(cString: strerror(errno))))"
        } else if let error = SmallFile.write("\(eventFD) \(targetFD) \(argument)", to: controlFD) {
            failure = "\(controlFile): \(target) \(argument) refused (\(String(cString: strerror(error))))"
        }
        if let failure {
            registration.failures.append(failure)
            _ = closeDescriptor(eventFD)
            return
        }
        registration.sources.append(MemoryPressureSource(
            fd: eventFD, mechanism: mechanism, kind: kind, directory: directory,
            description: "\(mechanism.rawValue) \(description) at \(targetFile)"))
    }
    #endif
}
