import Imago
import Synchronization
import XCTest

/// Collects pressure events and fulfils expectations on them, so tests wait for what they
/// expect (with a bounded timeout) instead of sleeping.
final class PressureRecorder: Sendable {
    typealias Predicate = @Sendable ([MemoryPressureEvent]) -> Bool
    private let state = Mutex<(events: [MemoryPressureEvent], waiters: [(Predicate, XCTestExpectation)])>(([], []))

    var events: [MemoryPressureEvent] { state.withLock { $0.events } }
    var levels: [MemoryPressureLevel] { events.map(\.level) }

    var handler: MemoryPressureMonitor.Handler { { [weak self] event in self?.record(event) } }

    func record(_ event: MemoryPressureEvent) {
        let ready = state.withLock { state -> [XCTestExpectation] in
            state.events.append(event)
            let events = state.events
            let (met, waiting) = (state.waiters.filter { $0.0(events) }, state.waiters.filter { !$0.0(events) })
            state.waiters = waiting
            return met.map(\.1)
        }
        ready.forEach { $0.fulfill() }
    }

    /// An expectation fulfilled once `predicate` holds over the events recorded so far.
    func expectation(_ description: String, where predicate: @escaping Predicate) -> XCTestExpectation {
        let expectation = XCTestExpectation(description: description)
        let met = state.withLock { state -> Bool in
            if predicate(state.events) { return true }
            state.waiters.append((predicate, expectation))
            return false
        }
        if met { expectation.fulfill() }
        return expectation
    }

    func expectation(level: MemoryPressureLevel) -> XCTestExpectation {
        expectation("a \(level) event") { $0.contains { $0.level == level } }
    }
}
