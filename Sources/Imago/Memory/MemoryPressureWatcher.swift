#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// What the watcher thread needs from its monitor, without holding the monitor itself (the
/// monitor's deinit stops the watcher, so the watcher must not keep it alive).
struct MemoryPressureWatchContext: Sendable {
    let root: String
    let configuration: MemoryPressureMonitor.Configuration
    /// The limit, read again (`MemoryLimit.refresh()` for the process's own monitor).
    let readLimit: @Sendable () -> MemoryLimit
    /// The usage the kernel's thresholds see (page cache included).
    let usage: @Sendable (MemoryLimit) -> Int?
    /// The usage to classify by: `usage` less the page cache the kernel reclaims before it kills
    /// (a process that reads or writes files fills its cgroup's usage with it).
    let pressingUsage: @Sendable (MemoryLimit) -> Int?
    let deliver: @Sendable (MemoryPressureLevel, MemoryPressureMechanism, MemoryLimit) -> Void
    let mechanismsChanged: @Sendable ([String]) -> Void
}

/// One dedicated thread blocked in `poll()` on every registered descriptor and a wake-up
/// eventfd (shutdown, limit changes). It wakes only for a notification, for the polling
/// fallback's interval, or for the recovery check after pressure; idle it costs nothing.
final class MemoryPressureWatcher: @unchecked Sendable {
    // @unchecked: `registration`, `thresholdBasis`, `lastLevel` and `recoveryDeadline` belong
    // to the watcher thread once `start()` returned; everything else is immutable or atomic.
    private var registration: MemoryPressureRegistration
    private var thresholdBasis: Int?
    private var lastLevel = MemoryPressureLevel.normal
    private var recoveryDeadline: ContinuousClock.Instant?
    /// While usage counted with page cache is at a higher level than without it, a threshold
    /// crossing will not come again: the level without it is read again at this instant (every
    /// `pollingInterval`), for the mechanism that crossed.
    private var pageCacheRecheck: (due: ContinuousClock.Instant, mechanism: MemoryPressureMechanism)?
    private let context: MemoryPressureWatchContext
    private let wakeReadFD: Int32
    private let wakeWriteFD: Int32
    private let stopRequested = Atomic<Bool>(false)
    private let reloadRequested = Atomic<Bool>(false)
    private let closesWakeOnExit = Atomic<Bool>(false)
    #if os(Linux)
    private var thread = pthread_t()
    #else
    private var thread: pthread_t?
    #endif
    /// The kernel id of the watcher thread once it runs (0 before), to measure it in /proc.
    let threadID = Atomic<Int32>(0)

    /// Most source notifications handled per second before the watcher sits the rest of the
    /// second out (100): a descriptor that stays ready must not turn into a busy loop.
    static let wakeUpBudgetPerSecond = 100

    /// Takes ownership of `registration`'s descriptors. Nil (descriptors closed) when no wake-up
    /// descriptor can be made.
    init?(registration: MemoryPressureRegistration, limit: MemoryLimit, context: MemoryPressureWatchContext) {
        #if os(Linux)
        let fd = systemEventFD(0, eventFDCloseOnExec | eventFDNonBlocking)
        guard fd >= 0 else { registration.closeAll(); return nil }
        (wakeReadFD, wakeWriteFD) = (fd, fd)
        #else
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { registration.closeAll(); return nil }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC); _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        (wakeReadFD, wakeWriteFD) = (fds[0], fds[1])
        #endif
        self.registration = registration
        self.context = context
        self.thresholdBasis = limit.source == .cgroupV1 ? limit.bytes : nil
    }

    /// Starts the thread; false (everything closed) when it cannot be created.
    func start() -> Bool {
        let box = Unmanaged.passRetained(self).toOpaque()
        #if os(Linux)
        let result = pthread_create(&thread, nil, { raw in
            Unmanaged<MemoryPressureWatcher>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, box)
        #else
        let result = pthread_create(&thread, nil, { raw in
            Unmanaged<MemoryPressureWatcher>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box)
        #endif
        if result != 0 {
            Unmanaged<MemoryPressureWatcher>.fromOpaque(box).release()
            registration.closeAll()
            closeWake()
            return false
        }
        return true
    }

    /// Wakes the thread to read the limit again and re-register usage thresholds if it moved.
    func reloadLimit() {
        reloadRequested.store(true, ordering: .releasing)
        signalWake()
    }

    /// Ends the thread and closes every descriptor. Joins it, unless called on the watcher
    /// thread itself (an observer cancelled from its handler): the thread then finishes its
    /// current round, closes everything and exits detached.
    func stop() {
        stopRequested.store(true, ordering: .releasing)
        #if os(Linux)
        let handle = thread
        #else
        guard let handle = thread else { return }
        #endif
        if pthread_equal(pthread_self(), handle) != 0 {
            closesWakeOnExit.store(true, ordering: .releasing)
            pthread_detach(handle)
            return
        }
        signalWake()
        pthread_join(handle, nil)
        closeWake()
    }

    private func signalWake() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(wakeWriteFD, $0.baseAddress, wakeReadFD == wakeWriteFD ? 8 : 1) }
    }

    private func closeWake() {
        _ = closeDescriptor(wakeReadFD)
        if wakeWriteFD != wakeReadFD { _ = closeDescriptor(wakeWriteFD) }
    }

    // MARK: - The thread

    private func run() {
        #if os(Linux)
        // Named before its id is published: whoever finds the thread by id sees it named.
        _ = systemSetThreadName(pthread_self(), "imago-memwatch")
        threadID.store(systemThreadID(), ordering: .releasing)
        #endif
        var bucketStart = ContinuousClock.now
        var wakeUpsInBucket = 0
        var nextPoll = registration.polling ? ContinuousClock.now : nil
        while !stopRequested.load(ordering: .acquiring) {
            let now = ContinuousClock.now
            if now - bucketStart >= .seconds(1) { (bucketStart, wakeUpsInBucket) = (now, 0) }
            let overBudget = wakeUpsInBucket >= Self.wakeUpBudgetPerSecond
            let deadline = [nextPoll, recoveryDeadline, pageCacheRecheck?.due, overBudget ? bucketStart + .seconds(1) : nil]
                .compactMap { $0 }.min()

            var fds = [pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0)]
            if !overBudget { fds += registration.sources.map { pollfd(fd: $0.fd, events: $0.pollEvents, revents: 0) } }
            let ready = poll(&fds, nfds_t(fds.count), Self.milliseconds(until: deadline))
            if ready < 0 {
                if errno == EINTR { continue }
                // Not expected (ENOMEM): wait a polling interval rather than spin on the error.
                _ = poll(nil, 0, Self.milliseconds(until: ContinuousClock.now + context.configuration.pollingInterval))
                continue
            }
            if fds[0].revents != 0 { drainWake() }
            if stopRequested.load(ordering: .acquiring) { break }
            // Sources first: `fds` lines up with `registration.sources` only until a
            // re-registration changes them.
            if ready > 0, fds.dropFirst().contains(where: { $0.revents != 0 }) {
                wakeUpsInBucket += 1
                handleReadySources(Array(fds.dropFirst()))
            }
            if reloadRequested.exchange(false, ordering: .acquiringAndReleasing) {
                reregisterThresholdsIfMoved(context.readLimit())
            }
            let after = ContinuousClock.now
            if let due = nextPoll, after >= due {
                pollUsage()
                nextPoll = after + context.configuration.pollingInterval
            }
            if let due = recoveryDeadline, after >= due { checkRecovery() }
            if let recheck = pageCacheRecheck, after >= recheck.due { recheckBesidesPageCache(recheck.mechanism) }
        }
        registration.closeAll()
        registration.sources.removeAll()
        if closesWakeOnExit.load(ordering: .acquiring) { closeWake() }
    }

    private func handleReadySources(_ polled: [pollfd]) {
        var outcomes: [(MemoryPressureSource.Outcome, MemoryPressureMechanism)] = []
        var dead: [Int] = []
        for (index, entry) in polled.enumerated() where entry.revents != 0 {
            let outcome = registration.sources[index].consume(entry.revents)
            if outcome == .gone { dead.append(index) } else { outcomes.append((outcome, registration.sources[index].mechanism)) }
        }
        if !dead.isEmpty {
            for index in dead.reversed() { registration.sources.remove(at: index).close() }
            context.mechanismsChanged(registration.descriptions(pollingInterval: context.configuration.pollingInterval))
        }
        guard outcomes.contains(where: { $0.0 != .nothing }) else { return }
        let limit = context.readLimit()
        var strongest: (MemoryPressureLevel, MemoryPressureMechanism)?
        for (outcome, mechanism) in outcomes {
            let level: MemoryPressureLevel
            switch outcome {
            case .level(let fired): level = fired
            case .classifyUsage(let hint):
                let levels = usageLevels(limit)
                level = levels.pressing ?? hint
                if let counted = levels.withPageCache, counted > level {
                    pageCacheRecheck = (ContinuousClock.now + context.configuration.pollingInterval, mechanism)
                }
            case .nothing, .gone: continue
            }
            if strongest.map({ level > $0.0 }) ?? true { strongest = (level, mechanism) }
        }
        // A crossing that page cache alone caused is no news.
        if let (level, mechanism) = strongest, level != .normal || lastLevel != .normal { signal(level, mechanism, limit) }
        reregisterThresholdsIfMoved(limit)
    }

    /// The levels of the usage with and without page cache (nil where unknown).
    private func usageLevels(_ limit: MemoryLimit) -> (pressing: MemoryPressureLevel?, withPageCache: MemoryPressureLevel?) {
        (classify(context.pressingUsage(limit), limit), classify(context.usage(limit), limit))
    }

    /// A threshold crossing was classified lower than the usage that crossed (page cache): look
    /// again, delivering a rise, for as long as the two differ. A fall is the recovery check's
    /// (`.normal` once nothing fired for `recoveryInterval`): reclaim's own events may come
    /// meanwhile.
    private func recheckBesidesPageCache(_ mechanism: MemoryPressureMechanism) {
        let limit = context.readLimit()
        let levels = usageLevels(limit)
        guard let level = levels.pressing else { pageCacheRecheck = nil; return }
        if level > lastLevel { signal(level, mechanism, limit) }
        pageCacheRecheck = levels.withPageCache.map { $0 > level } == true
            ? (ContinuousClock.now + context.configuration.pollingInterval, mechanism) : nil
    }

    /// The polling fallback: deliver when the level computed from usage changes.
    private func pollUsage() {
        let limit = context.readLimit()
        guard let level = classify(context.pressingUsage(limit), limit), level != lastLevel else { return }
        signal(level, .polling, limit)
    }

    /// After the recovery interval without a notification: back to normal when usage (where
    /// known) is below the warning fraction, otherwise look again after another interval.
    private func checkRecovery() {
        let limit = context.readLimit()
        if let level = classify(context.pressingUsage(limit), limit), level > .normal {
            recoveryDeadline = ContinuousClock.now + context.configuration.recoveryInterval
            return
        }
        signal(.normal, .subsided, limit)
    }

    private func signal(_ level: MemoryPressureLevel, _ mechanism: MemoryPressureMechanism, _ limit: MemoryLimit) {
        lastLevel = level
        recoveryDeadline = level > .normal && !registration.polling
            ? ContinuousClock.now + context.configuration.recoveryInterval : nil
        context.deliver(level, mechanism, limit)
    }

    private func classify(_ usage: Int?, _ limit: MemoryLimit) -> MemoryPressureLevel? {
        guard let usage, limit.bytes > 0 else { return nil }
        let fraction = Double(usage) / Double(limit.bytes)
        if fraction >= context.configuration.criticalFraction { return .critical }
        return fraction >= context.configuration.warningFraction ? .warning : .normal
    }

    /// v1 usage thresholds are absolute byte counts: when the limit moved, register new ones.
    private func reregisterThresholdsIfMoved(_ limit: MemoryLimit) {
        let basis = limit.source == .cgroupV1 ? limit.bytes : nil
        guard basis != thresholdBasis else { return }
        thresholdBasis = basis
        let old = registration.sources.filter { if case .usageThreshold = $0.kind { return true } else { return false } }
        old.forEach { $0.close() }
        registration.sources.removeAll { if case .usageThreshold = $0.kind { return true } else { return false } }
        MemoryPressureRegistrar.registerUsageThresholds(root: context.root, limit: limit,
                                                       configuration: context.configuration, to: &registration)
        context.mechanismsChanged(registration.descriptions(pollingInterval: context.configuration.pollingInterval))
    }

    private func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(wakeReadFD, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// poll's timeout: -1 (no deadline) or the milliseconds left, rounded up so the deadline has
    /// passed on wake-up.
    private static func milliseconds(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let left = deadline - ContinuousClock.now
        if left <= .zero { return 0 }
        let (seconds, attoseconds) = left.components
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
