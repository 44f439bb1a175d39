@testable import Imago
import ImagoConformance
import ImagoTestSupport
import Synchronization
import XCTest

/// `MemoryPressureMonitor` over fake cgroup trees: which sources it picks, the polling fallback,
/// the rate limit, and events through the real poll loop (lifetime: MemoryPressureLifetimeTests).
final class MemoryPressureMonitorTests: XCTestCase {
    private var tree: FakeCgroupTree!
    private let v1Dir = "/sys/fs/cgroup/memory/app"
    private let v2Dir = "/sys/fs/cgroup/unified/app.slice"

    override func setUpWithError() throws { tree = try FakeCgroupTree() }
    override func tearDown() { tree.remove() }

    private func mechanisms(_ monitor: MemoryPressureMonitor) -> [String] {
        monitor.activeMechanisms.map { line in
            MemoryPressureMechanism.allCases.first { line.hasPrefix($0.rawValue) }?.rawValue ?? line
        }
    }

    // MARK: Source selection

    func testCgroupV2PrefersPSIAndMemoryEvents() throws {
        try tree.unifiedCgroup(directory: v2Dir, pressureFiles: true)
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

    /// On a hybrid host the process sits in the unified hierarchy's root ("0::/"), whose
    /// memory.pressure measures the whole system: it is not the cgroup's own pressure.
    func testTheUnifiedRootOfAHybridHostIsNotTheCgroupsPressure() throws {
        try tree.cgroupFile("0::/")
        try tree.mountInfo(FakeCgroupTree.v2Mount())
        try tree.write("/sys/fs/cgroup/unified/cgroup.controllers", "cpu io pids\n")
        try tree.write("/sys/fs/cgroup/unified/memory.pressure", "some avg10=0.00\n")
        try tree.write("/proc/pressure/memory", "some avg10=0.00\n")
        let monitor = MemoryPressureMonitor(root: tree.root)
        let observation = monitor.addObserver { _ in }
        defer { observation.cancel() }
        XCTAssertEqual(mechanisms(monitor), ["/proc/pressure/memory", "/proc/pressure/memory"])
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
        try tree.unifiedCgroup(directory: v2Dir, pressureFiles: false)
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
        try tree.unifiedCgroup(directory: v2Dir, pressureFiles: false)
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: .fast())
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
        try tree.unifiedCgroup(directory: v2Dir, pressureFiles: false)
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: .fast())
        let recorder = PressureRecorder()
        let observation = monitor.addObserver(recorder.handler)
        defer { observation.cancel() }
        try tree.write(v2Dir + "/memory.max", "\(12 << 20)\n")   // 10 MiB used of 12: warning
        wait(for: [recorder.expectation(level: .warning)], timeout: 10)
        XCTAssertEqual(recorder.events.first?.limit.bytes, 12 << 20)
    }

    /// A notification through the real poll loop, then `.normal` after the recovery interval. In
    /// a fake tree `cgroup.event_control` is a plain file, so the registration line written last
    /// ("<eventfd> <target fd> critical") names the monitor's own eventfd, which the test signals
    /// as the kernel would.
    func testNotificationThenRecoveryToNormal() throws {
        try tree.cgroupFile("4:memory:/app")
        try tree.mountInfo(FakeCgroupTree.v1Mount())
        try tree.write(v1Dir + "/memory.usage_in_bytes", "\(1 << 20)\n")
        try tree.write(v1Dir + "/memory.pressure_level", "")
        try tree.write(v1Dir + "/cgroup.event_control", "")
        let monitor = MemoryPressureMonitor(root: tree.root, configuration: .fast())
        let recorder = PressureRecorder()
        let observation = monitor.addObserver(recorder.handler)
        defer { observation.cancel() }
        XCTAssertEqual(mechanisms(monitor), ["cgroup v1 memory.pressure_level", "cgroup v1 memory.pressure_level"])
        let line = try String(contentsOfFile: tree.root + v1Dir + "/cgroup.event_control", encoding: .utf8)
        let fields = line.split(separator: " ")
        XCTAssertEqual(fields.last, "critical")
        let eventFD = try XCTUnwrap(fields.first.flatMap { Int32($0) })

        var one: UInt64 = 1
        XCTAssertEqual(withUnsafeBytes(of: &one) { write(eventFD, $0.baseAddress, 8) }, 8)
        wait(for: [recorder.expectation(level: .normal)], timeout: 10)
        XCTAssertEqual(recorder.levels, [.critical, .normal])
        XCTAssertEqual(recorder.events.map(\.mechanism), [.cgroupV1PressureLevel, .subsided])
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

    func testSimulatedOnlyWatchesNothingAndDeliversOnlySimulatedEvents() throws {
        let monitor = MemoryPressureMonitor.simulatedOnly(configuration: .init(minimumRepeatInterval: .seconds(60)))
        let recorder = PressureRecorder()
        let observation = monitor.addObserver(recorder.handler)
        defer { observation.cancel() }
        XCTAssertEqual(monitor.activeMechanisms, [], "no kernel source, not even polling")
        XCTAssertEqual(monitor.unavailableMechanisms, [])
        XCTAssertNil(monitor.watcherThreadID, "no watcher thread")
        for level: MemoryPressureLevel in [.warning, .warning, .critical] { monitor.simulate(level) }
        XCTAssertEqual(recorder.levels, [.warning, .critical], "the same rate limit as a watching monitor")
        XCTAssertEqual(recorder.events.map(\.mechanism), [.simulated, .simulated])
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
}
