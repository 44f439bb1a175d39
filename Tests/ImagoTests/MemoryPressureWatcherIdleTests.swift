@_spi(Cgroups) @testable import Imago
import Foundation
import ImagoTestSupport
import XCTest

/// What the pressure monitor's watcher thread costs while nothing happens: with the process's
/// own sources it sleeps in poll(), and the polling fallback wakes at its interval. Measured
/// over real time (the measurement is idle time itself), with bounds loose enough for a busy host.
final class MemoryPressureWatcherIdleTests: XCTestCase {
    /// The watcher's idle cost with the process's own sources (default 1 s; set
    /// IMAGO_IDLE_SECONDS for a longer measurement). Idle, the thread sleeps in poll().
    func testIdleWatcherDoesNotWakeUp() throws {
        let monitor = MemoryPressureMonitor()
        let observation = monitor.addObserver { _ in }
        defer { observation.cancel() }
        let tid = try XCTUnwrap(waitForThreadID(monitor))
        XCTAssertEqual(ThreadStats.name(threadID: tid), "imago-memwatch")
        let seconds = Double(ProcessInfo.processInfo.environment["IMAGO_IDLE_SECONDS"] ?? "") ?? 1
        let start = try XCTUnwrap(ThreadStats.read(threadID: tid))
        Thread.sleep(forTimeInterval: seconds)   // the measurement itself: idle time
        let end = try XCTUnwrap(ThreadStats.read(threadID: tid))
        let wakeUps = end.voluntarySwitches - start.voluntarySwitches
        let cpu = Double(end.cpuNanoseconds - start.cpuNanoseconds) / 1e9
        print("mechanisms: \(monitor.activeMechanisms)")
        print(String(format: "idle %.0f s: %d voluntary + %d involuntary switches (%.2f wake-ups/s), %.6f CPU seconds",
                     seconds, wakeUps, end.involuntarySwitches - start.involuntarySwitches, Double(wakeUps) / seconds, cpu))
        // Only a real pressure notification may wake it; allow a few in case the host is busy.
        XCTAssertLessThanOrEqual(Double(wakeUps) / seconds, 5)
    }

    /// The polling fallback's cost (no cgroup, no PSI: a tree whose /proc/self is the real one
    /// but has no /proc/pressure, so resident memory is compared with physical memory every
    /// 500 ms): about 2 wake-ups/s.
    func testPollingFallbackWakesAtItsInterval() throws {
        let tree = try FakeCgroupTree()
        defer { tree.remove() }
        try tree.makeDirectory("/proc")
        XCTAssertEqual(symlink("/proc/self", tree.root + "/proc/self"), 0)
        let monitor = MemoryPressureMonitor(root: tree.root)
        let observation = monitor.addObserver { _ in }
        defer { observation.cancel() }
        XCTAssertEqual(monitor.activeMechanisms, ["usage polling every 0.5 seconds"])
        let tid = try XCTUnwrap(waitForThreadID(monitor))
        let seconds = Double(ProcessInfo.processInfo.environment["IMAGO_IDLE_SECONDS"] ?? "") ?? 1
        let start = try XCTUnwrap(ThreadStats.read(threadID: tid))
        Thread.sleep(forTimeInterval: seconds)   // the measurement itself
        let end = try XCTUnwrap(ThreadStats.read(threadID: tid))
        let wakeUps = end.voluntarySwitches - start.voluntarySwitches
        print(String(format: "polling %.0f s: %d wake-ups (%.2f/s), %.6f CPU seconds", seconds, wakeUps,
                     Double(wakeUps) / seconds, Double(end.cpuNanoseconds - start.cpuNanoseconds) / 1e9))
        XCTAssertLessThanOrEqual(Double(wakeUps) / seconds, 4)
    }

    // MARK: - Helpers

    private func waitForThreadID(_ monitor: MemoryPressureMonitor) -> Int32? {
        let ready = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in monitor.watcherThreadID != nil }, object: nil)
        wait(for: [ready], timeout: 10)
        return monitor.watcherThreadID
    }
}
