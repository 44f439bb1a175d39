import Synchronization

/// Watches the process's memory pressure and tells observers, without spinning.
///
/// The kernel notifies; nothing is sampled unless nothing else is available. Sources, in order
/// of preference (`activeMechanisms` says which registered, `unavailableMechanisms` what failed):
/// - cgroup v2: PSI triggers on the cgroup's `memory.pressure` (`psiWarningTrigger` → warning,
///   `psiCriticalTrigger` → critical) and `memory.events` (a rising `high` or `max` count →
///   warning, `oom` or `oom_kill` → critical), only for a non-root cgroup with the memory controller;
/// - cgroup v1, through `cgroup.event_control` and eventfds: `memory.pressure_level` (medium →
///   warning, critical → critical) and, under a v1 limit, usage thresholds at `warningFraction`
///   and `criticalFraction` of it — the most direct signal of an approaching limit. Usage is
///   judged without the cgroup's page cache, which the kernel reclaims before it kills: a
///   crossing page cache alone caused is no event, and the usage is read again every
///   `pollingInterval` while the two figures differ in level (a crossing does not repeat);
/// - /proc/pressure/memory PSI triggers (system-wide) when no cgroup source registered;
/// - polling usage (or resident memory without a cgroup) every `pollingInterval` when nothing
///   could be registered, or when a cgroup limit is set and only the system-wide PSI sees it.
///
/// One dedicated thread blocks in `poll()` on all of them and a wake-up descriptor. It starts
/// when the first observer is added and stops, closing every descriptor, when the last goes
/// and in deinit. After a warning or critical, the monitor sends `.normal` once no notification
/// came for `recoveryInterval` and usage is below the warning fraction.
///
/// Handlers run on the watcher thread (or on the caller's of `simulate`); keep them short.
public final class MemoryPressureMonitor: Sendable {
    /// The monitor's thresholds, PSI triggers and intervals, fixed at `init`; each property states
    /// its default.
    public struct Configuration: Sendable, Equatable {
        /// Usage / limit at which the v1 threshold and the polling fallback report `.warning`
        /// (default 0.75).
        public var warningFraction: Double
        /// Usage / limit at which they report `.critical` (default 0.90).
        public var criticalFraction: Double
        /// PSI trigger for `.warning` (default "some 200000 2000000": some tasks stalled on memory
        /// for 200 ms, 10%, of a 2 s window; unprivileged processes may only use 2 s multiples).
        public var psiWarningTrigger: String
        /// PSI trigger for `.critical` (default "full 200000 2000000": all tasks stalled at once
        /// for 200 ms of a 2 s window).
        public var psiCriticalTrigger: String
        /// How often the polling fallback compares usage with the limit (default 500 ms).
        public var pollingInterval: Duration
        /// Least time between two events of the same level (default 250 ms); an event of another
        /// level, such as a critical after a warning, is always delivered.
        public var minimumRepeatInterval: Duration
        /// Quiet time after a warning or critical before `.normal` is sent (default 2 s).
        public var recoveryInterval: Duration

        /// A configuration with every default: warning at 75 % and critical at 90 % of the limit,
        /// PSI triggers of 200 ms per 2 s window, 500 ms polling, 250 ms between repeats, 2 s to
        /// recover.
        public init(warningFraction: Double = 0.75, criticalFraction: Double = 0.90,
                    psiWarningTrigger: String = "some 200000 2000000",
                    psiCriticalTrigger: String = "full 200000 2000000",
                    pollingInterval: Duration = .milliseconds(500),
                    minimumRepeatInterval: Duration = .milliseconds(250),
                    recoveryInterval: Duration = .seconds(2)) {
            self.warningFraction = warningFraction
            self.criticalFraction = criticalFraction
            self.psiWarningTrigger = psiWarningTrigger
            self.psiCriticalTrigger = psiCriticalTrigger
            self.pollingInterval = pollingInterval
            self.minimumRepeatInterval = minimumRepeatInterval
            self.recoveryInterval = recoveryInterval
        }
    }

    /// An observer's callback, given each event; it runs on the monitor's watcher thread (or on
    /// the thread calling `simulate(_:)`), so it must be short and must not block.
    public typealias Handler = @Sendable (MemoryPressureEvent) -> Void

    /// The process's monitor.
    public static let shared = MemoryPressureMonitor()

    /// The thresholds, triggers and intervals this monitor was made with.
    public let configuration: Configuration
    /// Prefix of every path read (see `MemoryLimit.read(root:)`); "/" for the real system.
    public let root: String
    /// The cgroups to watch when not the process's own (tests watch a child cgroup they made).
    private let explicitLocation: CgroupLocation?
    /// False for `simulatedOnly`: no source is registered and no watcher thread starts.
    private let watchesSystem: Bool
    private let state = Mutex(State())

    private struct State {
        var observers: [UInt64: Handler] = [:]
        var nextID: UInt64 = 0
        var watcher: MemoryPressureWatcher?
        var mechanisms: [String] = []
        var failures: [String] = []
        var lastDelivered: (level: MemoryPressureLevel, time: ContinuousClock.Instant)?
    }

    /// - Parameters:
    ///   - root: prefix of every path, for tests over fake trees (default "/").
    ///   - configuration: thresholds, triggers and intervals (default `Configuration()`).
    public convenience init(root: String = "/", configuration: Configuration = Configuration()) {
        self.init(root: root, location: nil, configuration: configuration, watchesSystem: true)
    }

    /// A monitor that watches nothing: it registers no kernel source and starts no thread, so
    /// only `simulate(_:)` delivers events (through the same rate limit), and no `.normal`
    /// follows a warning on its own. For tests and conformance subjects, whose verdicts must
    /// not depend on how busy the host's memory is (a real trim empties a cache a check counts).
    public static func simulatedOnly(configuration: Configuration = Configuration()) -> MemoryPressureMonitor {
        MemoryPressureMonitor(root: "/", location: nil, configuration: configuration, watchesSystem: false)
    }

    /// Watches `location`'s cgroups instead of the process's own.
    convenience init(root: String = "/", location: CgroupLocation, configuration: Configuration = Configuration()) {
        self.init(root: root, location: location, configuration: configuration, watchesSystem: true)
    }

    private init(root: String, location: CgroupLocation?, configuration: Configuration, watchesSystem: Bool) {
        self.root = root
        self.configuration = configuration
        self.explicitLocation = location
        self.watchesSystem = watchesSystem
    }

    deinit {
        state.withLock { $0.watcher.take() }?.stop()
    }

    /// Registers `handler` for every event until the returned observation is cancelled or
    /// deinitialised. The first observer starts the watcher.
    public func addObserver(_ handler: @escaping Handler) -> MemoryPressureObservation {
        let id = state.withLock { state in
            state.nextID += 1
            state.observers[state.nextID] = handler
            if state.watcher == nil, watchesSystem { startWatching(&state) }
            return state.nextID
        }
        return MemoryPressureObservation(monitor: self, id: id)
    }

    /// Every event from now on, as a stream for apps. Each access makes a new stream with its
    /// own observation, which ends when the stream terminates (its consuming task is cancelled
    /// or it is released). Keeps the newest 32 undelivered events.
    public var events: AsyncStream<MemoryPressureEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: MemoryPressureEvent.self,
                                                            bufferingPolicy: .bufferingNewest(32))
        let observation = addObserver { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// Delivers an event of `level` as if the system had reported it (mechanism `.simulated`),
    /// synchronously on the caller's thread and through the same rate limit.
    public func simulate(_ level: MemoryPressureLevel) {
        deliver(level, .simulated, readLimit())
    }

    /// The sources registered while observers exist, one description each (mechanism, file,
    /// threshold); empty when nothing is observed, and always for `simulatedOnly`.
    public var activeMechanisms: [String] { state.withLock { $0.mechanisms } }

    /// The sources that could not be registered at the last start, and why.
    public var unavailableMechanisms: [String] { state.withLock { $0.failures } }

    /// Makes the watcher read the limit again now (and re-register v1 usage thresholds if it
    /// moved), e.g. after the app changed its own cgroup's limit. It also does so on every event.
    public func limitDidChange() {
        state.withLock { $0.watcher?.reloadLimit() }
    }

    /// The watcher thread's kernel id while it runs, for measuring it under /proc/self/task.
    var watcherThreadID: Int32? {
        state.withLock { $0.watcher?.threadID.load(ordering: .acquiring) }.flatMap { $0 == 0 ? nil : $0 }
    }

    // MARK: - Internals

    func removeObserver(_ id: UInt64) {
        let stopping = state.withLock { state -> MemoryPressureWatcher? in
            state.observers[id] = nil
            guard state.observers.isEmpty else { return nil }
            state.mechanisms = []
            return state.watcher.take()
        }
        stopping?.stop()   // outside the lock: the thread may be waiting for it to deliver
    }

    /// Registers the sources and starts the thread, under the lock so that concurrent first
    /// observers start one watcher. Registration is a few small writes.
    private func startWatching(_ state: inout State) {
        let limit = readLimit()
        let location = explicitLocation ?? CgroupLocator.locate(root: root)
        let registration = MemoryPressureRegistrar.register(root: root, location: location, limit: limit,
                                                            configuration: configuration)
        state.mechanisms = registration.descriptions(pollingInterval: configuration.pollingInterval)
        state.failures = registration.failures
        let (root, explicitLocation) = (self.root, self.explicitLocation)
        let context = MemoryPressureWatchContext(
            root: root, configuration: configuration,
            readLimit: { Self.readLimit(root: root, location: explicitLocation) },
            usage: { Self.usage(root: root, limit: $0) },
            pressingUsage: { Self.usage(root: root, limit: $0, besidesPageCache: true) },
            deliver: { [weak self] level, mechanism, limit in self?.deliver(level, mechanism, limit) },
            mechanismsChanged: { [weak self] mechanisms in
                self?.state.withLock { if $0.watcher != nil { $0.mechanisms = mechanisms } }
            })
        guard let watcher = MemoryPressureWatcher(registration: registration, limit: limit, context: context),
              watcher.start() else {
            state.mechanisms = []
            state.failures.append("the watcher thread could not be started")
            return
        }
        state.watcher = watcher
    }

    /// Applies the same-level rate limit, then calls every observer outside the lock.
    private func deliver(_ level: MemoryPressureLevel, _ mechanism: MemoryPressureMechanism, _ limit: MemoryLimit) {
        let now = ContinuousClock.now
        let interval = configuration.minimumRepeatInterval
        let handlers = state.withLock { state -> [Handler] in
            if let last = state.lastDelivered, last.level == level, now - last.time < interval { return [] }
            state.lastDelivered = (level, now)
            return state.observers.sorted { $0.key < $1.key }.map(\.value)
        }
        guard !handlers.isEmpty else { return }
        let event = MemoryPressureEvent(level: level, mechanism: mechanism, time: now,
                                        usageBytes: Self.usage(root: root, limit: limit), limit: limit)
        for handler in handlers { handler(event) }
    }

    private func readLimit() -> MemoryLimit { Self.readLimit(root: root, location: explicitLocation) }

    /// `MemoryLimit.refresh()` for the real process (so `MemoryLimit.current` follows changes).
    private static func readLimit(root: String, location: CgroupLocation?) -> MemoryLimit {
        if let location {
            return MemoryLimit.read(root: root, location: location, physicalBytes: MemoryLimit.physicalMemory())
        }
        return root == "/" ? MemoryLimit.refresh() : MemoryLimit.read(root: root)
    }

    /// The cgroup usage behind the limit (less its page cache when `besidesPageCache`); resident
    /// memory when no cgroup limit applies and the cgroup has no usage figure.
    private static func usage(root: String, limit: MemoryLimit, besidesPageCache: Bool = false) -> Int? {
        if let usage = besidesPageCache ? limit.usageBesidesPageCacheBytes(root: root) : limit.usageBytes(root: root) { return usage }
        return limit.source == .physicalMemory ? ResidentMemory.bytes(root: root) : nil
    }
}
