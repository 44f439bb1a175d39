import ImagoTestServer
import Synchronization
import Testing

/// `Gate.onOpen` reports openings of a shut gate: a cleanup that opens an open gate again is not
/// one (the conformance suite's steps would list a second, late "opened").
struct GateOpenObserverTests {
    @Test func onlyOpeningAShutGateIsReported() {
        let gate = Gate()
        let openings = Mutex(0)
        gate.onOpen { openings.withLock { $0 += 1 } }
        gate.open()
        gate.open()
        #expect(openings.withLock { $0 } == 1)
        gate.close()
        gate.open()
        #expect(openings.withLock { $0 } == 2)
    }

    @Test func aGateMadeOpenReportsNoOpening() {
        let gate = Gate(isOpen: true)
        let openings = Mutex(0)
        gate.onOpen { openings.withLock { $0 += 1 } }
        gate.open()
        #expect(openings.withLock { $0 } == 0)
    }
}
