@testable import Imago
import ImagoConformance
import Synchronization
import XCTest

/// `MemoryPressureMonitor` over fake cgroup trees: which sources it picks, the polling fallback,
/// the rate limit, and that observations start and stop the watcher without leaking anything.
final class MemoryPressureMonitorTests: XCTestCase {
    private var tree: FakeCgroupTree!
    private let v1Dir = "/sys/fs/cgroup/memory/app"
    private let v2Dir = "/sys/fs/cgroup/unified/app.slice"

    override func setUpWithError() throws { tree = try FakeCgroupTree() }
    override func tearDown() { tree.remove() }

    private func v2Tree(pressureFiles: Bool) throws {
        try tree.cgroupFile("0::/app.slice")
        try tree.mountInfo(FakeCgroupTree.v2Mount())
        try tree.write(v2Dir + "/cgroup.controllers", "memory\n")
        try tree.write(v2Dir + "/memory.max", "\(100 << 20)\n")
        try tree.write(v2Dir + "/memory.current", "\(10 << 20)\n")
        if pressureFiles {
            try tree.write(v2Dir + "/memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
            try tree.write(v2Dir + "/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")
        }
    }

    private func mechanisms(_ monitor: MemoryPressureMonitor) -> [String] {
        monitor.activeMechanisms.map { line in
            MemoryPressureMechanism.allCases.first { line.hasPrefix($0.rawValue) }?.rawValue ?? line
        }
    }

    private func fastConfiguration(repeat interval: Duration = .zero) -> MemoryPressureMonitor.Configuration {
        .init(pollingInterval: .milliseconds(10), minimumRepeatInterval: interval, recoveryInterval: .milliseconds(50))
    }

    // MARK: Source selection

    func testCgroupV2PrefersPSIAndMemoryEvents() throws {
        try v2Tree(pressureFiles: true)
        try tree.write("/proc/pressure/memory", "some avg10=0.00\n")
        let monitor = MemoryPressureMonitor(root: tree.root)
        let observation = monitor.addObserver { _ in }
        XCTAssertEqual(mechanisms(monitor), ["cgroup v2 memory.pressure", "cgroup v2 memory.pressure", "cgroup v2 memory.events"])
        XCTAssertTrue(monitor.activeMechanisms[0].contains("\"some 200000 2000000\" → warning"), "\(monitor.activeMechanisms)")
        XCTAssertTrue(monitor.activeMechanisms[1].contains("\"full 200000 2000000\" → critical"), "\(monitor.activeMechanisms)")
        // The trigger was written to the (fake) pressure file, as to the kernel's.
        XCTAssertTrue(try String(contentsOfFile: tree.root + v2Dir + "/memory.pressure", encoding: .utf8).contains("200000 2000000"))
        observation.cancel()
        XCTAssertEqual(monitor.activeMechanisms, [])
    }

    func testCgroupV1RegistersPressureLevelsAndUsageThresholds() throws {
        try tree.cgroupFile("4:memory:/app")
        try tree.mountInfo(FakeCgroupTree.v1Mount())
        try tree.write(v1Dir + "/memory.limit_in_bytes", "\(1 << 30)\n")
        try tree.write(v1Dir + "/memory.usage_in_bytes", "\(1 << 20)\n")
        try tree.write(v1Dir + "/memory.pressure_level", "")
        try tree.write(v1Dir + "/cgroup.event_control", "")
        let monitor = MemoryPressureMonitor(root: tree.root)
        let observation = monitor.addObserver { _ in }
        defer { observation.cancel() }
        XCTAssertEqual(mechanisms(monitor), ["cgroup v1 memory.pressure_level", "cgroup v1 memory.pressure_level",
                                             "cgroup v1 usage threshold", "cgroup v1 usage threshold"])
        let lines = monitor.activeMechanisms
        XCTAssertTrue(lines[0].contains("medium → warning"), "\(lines)")
        XCTAssertTrue(lines[1].contains("critical → critical"), "\(lines)")
        XCTAssertTrue(lines[2].contains("75% = \(Int(Double(1 << 30) * 0.75)) bytes → warning"), "\(lines)")
        XCTAssertTrue(lines[3].contains("90% = \(Int(Double(1 << 30) * 0.9)) bytes → critical"), "\(lines)")
    }

    func testUsageThresholdsFollowAChangedLimit() throws {
        try tree.cgroupFile("4:memory:/app")
        try tree.mountInfo(FakeCgroupTree.v1Mount())
        try tree.write(v1Dir + "/memory.limit_in_bytes", "\(1 << 30)\n")
        try tree.write(v1Dir + "/memory.usage_in_bytes", "\(1 << 20)\n")
        try tree.write(v1Dir + "/cgroup.event_control", "")
        let monitor = MemoryPressureMonitor(root: tree.root)
        let observation = monitor.addObserver { _ in }
        defer { observation.cancel() }
        XCTAssertTrue(monitor.activeMechanisms.contains { $0.contains("75% = \(3 << 28) bytes") }, "\(monitor.activeMechanisms)")
        let fds = ProcessResources.now().fileDescriptors

        try tree.write(v1Dir + "/memory.limit_in_bytes", "\(1 << 29)\n")
        monitor.limitDidChange()
        let moved = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in
            monitor.activeMechanisms.contains { $0.contains("75% = \(3 << 27) bytes") }
        }, object: nil)
        wait(for: [moved], timeout: 10)
        XCTAssertEqual(monitor.activeMechanisms.filter { $0.hasPrefix("cgroup v1 usage threshold") }.count, 2)
        XCTAssertEqual(ProcessResources.now().fileDescriptors, fds, "the old thresholds' eventfds were closed")
    }

    func testSystemPSIWhenTheCgroupOffersNothing() throws {
        try tree.write("/proc/pressure/memory", "some avg10=0.00\n")
        let monitor = MemoryPressureMonitor(root: tree.root)
        let observation = monitor.addObserver { _ in }
        defer { observation.cancel() }
        XCTAssertEqual(mechanisms(monitor), ["/proc/pressure/memory", "/proc/pressure/memory"])
    }

    func testPollingJoinsSystemPSIUnderACgroupLimitNoCgroupSourceWatches() throws {
        try v2Tree(pressureFiles: false)
        try tree.write("/proc/pressure/memory", "some avg10=0.00\n")
        let monitor = MemoryPressureMonitor(root: tree.root)
        let observation = monitor.addObserver { _ in }
        defer { observation.cancel() }
        XCTAssertEqual(mechanisms(monitor), ["/proc/pressure/memory", "/proc/pressure/memory", "usage polling"])
        XCTAssertTrue(monitor.activeMechanisms[2].hasSuffix("every 0.5 seconds"), "\(monitor.activeMechanisms)")
        XCTAssertTrue(monitor.unavailableMechanisms.contains { $0.contains(v2Dir + "/memory.pressure: open failed") },
                      "\(monitor.unavailableMechanisms)")
    }

    func testPollingAloneWhenNothingCanBeRegistered() throws {
        let monitor = MemoryPressureMonitor(root: tree.root)
        let observation = monitor.addObserver { _ in }
        defer { observation.cancel() }
        XCTAssertEqual(mechanisms(monitor), ["usage polling"])
    }

    // MARK: Events

    func testPollingFallbackReportsLevelChanges() throws {
        try v2Tree(pressureFiles: false)
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: fastConfiguration())
        let recorder = PressureRecorder()
        let observation = monitor.addObserver(recorder.handler)
        defer { observation.cancel() }

        try tree.write(v2Dir + "/memory.current", "\(80 << 20)\n")
        wait(for: [recorder.expectation(level: .warning)], timeout: 10)
        try tree.write(v2Dir + "/memory.current", "\(95 << 20)\n")
        wait(for: [recorder.expectation(level: .critical)], timeout: 10)
        try tree.write(v2Dir + "/memory.current", "\(10 << 20)\n")
        wait(for: [recorder.expectation(level: .normal)], timeout: 10)

        XCTAssertEqual(recorder.levels, [.warning, .critical, .normal])
        let critical = try XCTUnwrap(recorder.events.first { $0.level == .critical })
        XCTAssertEqual(critical.mechanism, .polling)
        XCTAssertEqual(critical.usageBytes, 95 << 20)
        XCTAssertEqual(critical.limit.bytes, 100 << 20)
        XCTAssertEqual(critical.limit.source, .cgroupV2)
    }

    func testLimitIsReadAgainForEveryEvent() throws {
        try v2Tree(pressureFiles: false)
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: fastConfiguration())
        let recorder = PressureRecorder()
        let observation = monitor.addObserver(recorder.handler)
        defer { observation.cancel() }
        try tree.write(v2Dir + "/memory.max", "\(12 << 20)\n")   // 10 MiB used of 12: warning
        wait(for: [recorder.expectation(level: .warning)], timeout: 10)
        XCTAssertEqual(recorder.events.first?.limit.bytes, 12 << 20)
    }

    func testSameLevelIsRateLimitedButALevelChangeIsNot() throws {
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: .init(minimumRepeatInterval: .seconds(60)))
        let recorder = PressureRecorder()
        let observation = monitor.addObserver(recorder.handler)
        defer { observation.cancel() }
        for level: MemoryPressureLevel in [.warning, .warning, .critical, .critical, .warning] { monitor.simulate(level) }
        XCTAssertEqual(recorder.levels, [.warning, .critical, .warning])
        XCTAssertEqual(recorder.events.map(\.mechanism), [.simulated, .simulated, .simulated])
    }

    func testSimulateWithoutRateLimitDeliversEverything() throws {
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: .init(minimumRepeatInterval: .zero))
        let recorder = PressureRecorder()
        let observation = monitor.addObserver(recorder.handler)
        defer { observation.cancel() }
        for _ in 0..<3 { monitor.simulate(.warning) }
        XCTAssertEqual(recorder.levels, [.warning, .warning, .warning])
    }

    func testEventsStreamEndsItsObservationWhenCancelled() async throws {
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: .init(minimumRepeatInterval: .zero))
        // Dispatch opens a timerfd per clock on first use; let the waits below not count as a leak.
        try await Task.sleep(for: .milliseconds(1))
        let baseline = ProcessResources.now()
        let before = ProcessResources.openDescriptorTargets()
        let first = Task { () -> MemoryPressureLevel? in
            for await event in monitor.events { return event.level }
            return nil
        }
        try await waitFor { !monitor.activeMechanisms.isEmpty }
        monitor.simulate(.critical)
        let level = await first.value
        XCTAssertEqual(level, .critical)
        try await waitFor { monitor.activeMechanisms.isEmpty }
        let closed = await waitUntil(timeout: .seconds(5)) { ProcessResources.now().fileDescriptors == baseline.fileDescriptors }
        XCTAssertTrue(closed, "before: \(before)\nafter: \(ProcessResources.openDescriptorTargets())")
    }

    // MARK: Lifetime

    func testWatcherRunsWhileObservedAndLeavesNothingBehind() throws {
        try v2Tree(pressureFiles: true)
        try tree.write("/proc/pressure/memory", "some\n")
        let monitor = MemoryPressureMonitor(root: tree.root)
        let before = ProcessResources.now()
        XCTAssertNil(monitor.watcherThreadID)

        let first = monitor.addObserver { _ in }
        var second: MemoryPressureObservation? = monitor.addObserver { _ in }
        let during = ProcessResources.now()
        XCTAssertEqual(during.threads, before.threads + 1, "one watcher thread")
        XCTAssertEqual(during.fileDescriptors, before.fileDescriptors + 4, "2 PSI triggers, memory.events, wake-up eventfd")

        first.cancel()
        XCTAssertEqual(ProcessResources.now().threads, before.threads + 1, "still observed")
        second = nil   // deinit ends the last observation
        XCTAssertNil(second)
        let after = ProcessResources.now()
        XCTAssertEqual(after.fileDescriptors, before.fileDescriptors, ProcessResources.openDescriptorTargets().joined(separator: "\n"))
        XCTAssertEqual(after.threads, before.threads)
        XCTAssertNil(monitor.watcherThreadID)

        // Observing again starts a fresh watcher.
        let third = monitor.addObserver { _ in }
        XCTAssertFalse(monitor.activeMechanisms.isEmpty)
        third.cancel()
        XCTAssertEqual(ProcessResources.now().fileDescriptors, before.fileDescriptors)
    }

    func testCancelledObserverIsReleasedAndNotCalled() throws {
        final class Captured: Sendable {}
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: .init(minimumRepeatInterval: .zero))
        let calls = Atomic<Int>(0)
        weak var weakCaptured: Captured?
        var observation: MemoryPressureObservation?
        do {
            let captured = Captured()
            weakCaptured = captured
            observation = monitor.addObserver { _ in withExtendedLifetime(captured) { _ = calls.add(1, ordering: .relaxed) } }
        }
        monitor.simulate(.warning)
        XCTAssertEqual(calls.load(ordering: .relaxed), 1)
        observation?.cancel()
        XCTAssertNil(weakCaptured, "the handler is released when the observation ends")
        monitor.simulate(.critical)
        XCTAssertEqual(calls.load(ordering: .relaxed), 1)
        XCTAssertTrue(observation?.isCancelled == true)
    }

    func testObserverCancellingItselfOnTheWatcherThread() throws {
        try v2Tree(pressureFiles: false)
        let before = ProcessResources.now()
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: fastConfiguration())
        let slot = Mutex<MemoryPressureObservation?>(nil)
        let called = XCTestExpectation(description: "handler ran and cancelled itself")
        let observation = monitor.addObserver { _ in
            slot.withLock { $0 }?.cancel()   // stops the watcher from its own thread
            called.fulfill()
        }
        slot.withLock { $0 = observation }
        try tree.write(v2Dir + "/memory.current", "\(99 << 20)\n")
        wait(for: [called], timeout: 10)
        slot.withLock { $0 = nil }
        // The detached thread closes its descriptors as it ends.
        let closed = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in
            ProcessResources.now().fileDescriptors == before.fileDescriptors
        }, object: nil)
        wait(for: [closed], timeout: 10)
        XCTAssertEqual(monitor.activeMechanisms, [])
    }

    func testMonitorDeinitStopsTheWatcher() throws {
        try v2Tree(pressureFiles: true)
        let before = ProcessResources.now()
        var monitor: MemoryPressureMonitor? = MemoryPressureMonitor(root: tree.root)
        let observation = monitor!.addObserver { _ in }
        XCTAssertEqual(ProcessResources.now().threads, before.threads + 1)
        monitor = nil
        XCTAssertEqual(ProcessResources.now().fileDescriptors, before.fileDescriptors)
        XCTAssertEqual(ProcessResources.now().threads, before.threads)
        observation.cancel()   // a no-op now
    }

    // MARK: Sources

    func testMemoryEventsCountsRisingGiveLevels() throws {
        let file = tree.root + "/memory.events"
        try tree.write("/memory.events", "low 0\nhigh 1\nmax 0\noom 0\noom_kill 0\n")
        let fd = open(file, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var source = MemoryPressureSource(fd: fd, mechanism: .cgroupV2Events,
                                          kind: .memoryEvents(counts: ["high": 1, "max": 0]), directory: nil, description: "")
        defer { source.close() }
        XCTAssertEqual(source.consume(Int16(POLLPRI)), .nothing)
        try tree.write("/memory.events", "low 0\nhigh 2\nmax 0\noom 0\noom_kill 0\n")
        XCTAssertEqual(source.consume(Int16(POLLPRI | POLLERR)), .level(.warning))
        try tree.write("/memory.events", "low 0\nhigh 2\nmax 1\noom 0\noom_kill 0\n")
        XCTAssertEqual(source.consume(Int16(POLLPRI | POLLERR)), .level(.critical))
        XCTAssertEqual(MemoryPressureSource.parseCounts("a 1\nbad\nb x\nc 3"), ["a": 1, "c": 3])
    }

    func testEventCounterSourcesAndRemovedCgroups() throws {
        let fd = systemEventFD(0, eventFDCloseOnExec | eventFDNonBlocking)
        var source = MemoryPressureSource(fd: fd, mechanism: .cgroupV1PressureLevel, kind: .pressureLevel(.critical),
                                          directory: tree.root, description: "")
        XCTAssertEqual(source.consume(Int16(POLLIN)), .nothing, "a spurious wake-up")
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(fd, $0.baseAddress, 8) }
        XCTAssertEqual(source.consume(Int16(POLLIN)), .level(.critical))
        tree.remove()
        XCTAssertEqual(source.consume(Int16(POLLIN)), .gone, "the cgroup directory went away")
        source.close()
    }
}
