@testable import ImagoTestServer
import NIOCore
import Testing

/// The release-time arithmetic of the delay proxy, on made-up clocks: what the timers then
/// only carry out.
struct LinkScheduleTests {
    private func at(milliseconds: Int64) -> NIODeadline { .uptimeNanoseconds(UInt64(milliseconds) * 1_000_000 + 1_000_000_000) }

    @Test func withoutACapEveryPieceWaitsExactlyTheDelay() {
        var link = LinkSchedule(delay: .milliseconds(40), bytesPerSecond: nil)
        #expect(link.release(bytes: 100_000, arrivedAt: at(milliseconds: 0)) == at(milliseconds: 40))
        #expect(link.release(bytes: 1, arrivedAt: at(milliseconds: 3)) == at(milliseconds: 43))
        #expect(link.releaseOfEnd(arrivedAt: at(milliseconds: 5)) == at(milliseconds: 45))
        #expect(link.sliceLength == .max)
    }

    @Test func aCapSendsOnePieceAfterAnotherAtItsRate() {
        var link = LinkSchedule(delay: .milliseconds(10), bytesPerSecond: 1_000)
        // 500 bytes take 500 ms; the next 500, arriving while the first are on the link, follow them.
        #expect(link.release(bytes: 500, arrivedAt: at(milliseconds: 0)) == at(milliseconds: 510))
        #expect(link.release(bytes: 500, arrivedAt: at(milliseconds: 100)) == at(milliseconds: 1_010))
        // The end comes after the last byte, not before.
        #expect(link.releaseOfEnd(arrivedAt: at(milliseconds: 200)) == at(milliseconds: 1_010))
        // An idle link starts again when the next piece arrives.
        #expect(link.release(bytes: 100, arrivedAt: at(milliseconds: 5_000)) == at(milliseconds: 5_110))
        #expect(link.sliceLength == 10)
    }

    @Test func aSimulatedHandshakeHoldsTheFirstBytes() {
        var link = LinkSchedule(delay: .milliseconds(25), bytesPerSecond: nil, linkFreeAt: at(milliseconds: 50))
        #expect(link.release(bytes: 10, arrivedAt: at(milliseconds: 1)) == at(milliseconds: 75))
        #expect(link.release(bytes: 10, arrivedAt: at(milliseconds: 60)) == at(milliseconds: 85))
    }

    @Test(arguments: [(1, 3, Int64(333_333_334)), (3, 3, Int64(1_000_000_000)), (65_536, 6_553_600, Int64(10_000_000))])
    func transmissionTimeIsNeverShorterThanTheRateAllows(bytes: Int, rate: Int, nanoseconds: Int64) {
        let link = LinkSchedule(delay: .zero, bytesPerSecond: rate)
        #expect(link.transmissionTime(bytes: bytes) == .nanoseconds(nanoseconds))
    }

    @Test(arguments: [(50, 1), (1_000_000, 10_000), (100_000_000, 65_536)])
    func slicesAreAboutTenMillisecondsOfTheRate(rate: Int, slice: Int) {
        #expect(LinkSchedule(delay: .zero, bytesPerSecond: rate).sliceLength == slice)
    }
}
