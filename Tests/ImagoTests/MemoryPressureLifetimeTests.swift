@testable import Imago
import ImagoTestSupport
import Synchronization
import XCTest

/// `MemoryPressureMonitor`'s lifetime (observations start and stop the watcher without leaking
/// threads, descriptors or handlers) and its sources' reading of kernel notifications.
final class MemoryPressureLifetimeTests: XCTestCase {
    private var tree: FakeCgroupTree!
    private let v2Dir = "/sys/fs/cgroup/unified/app.slice"

    override func setUpWithError() throws { tree = try FakeCgroupTree() }
    override func tearDown() { tree.remove() }

    // MARK: Lifetime

    func testWatcherRunsWhileObservedAndLeavesNothingBehind() throws {
        try tree.unifiedCgroup(directory: v2Dir, pressureFiles: true)
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
        try tree.unifiedCgroup(directory: v2Dir, pressureFiles: false)
        let before = ProcessResources.now()
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: .fast())
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
        try tree.unifiedCgroup(directory: v2Dir, pressureFiles: true)
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
        XCTAssertEqual(source.consume(Int16(POLLPRI | POLLERR)), .level(.warning), "reclaim at memory.max is routine")
        try tree.write("/memory.events", "low 0\nhigh 2\nmax 1\noom 1\noom_kill 1\n")
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
