import Testing
@testable import ImagoBench

@Suite struct RunNoiseTests {
    @Test(arguments: [
        ("0.20 0.30 0.40", "1.10 0.50 0.40", 2, false),   // quiet before; the bench's own load after
        ("1.00 0.80 0.60", "1.50 1.00 0.70", 2, true),    // half the cores busy before it began
        ("0.10 0.10 0.10", "2.50 1.20 0.50", 2, true),    // more than the cores at the end
        ("0.90 0.90 0.90", "1.90 1.00 1.00", 2, false),   // just under both bounds
        ("unknown", "unknown", 2, false),                  // no /proc/loadavg: no verdict
    ])
    func aRunIsNoisyWhenOtherWorkLoadedTheMachine(start: String, end: String, cores: Int, noisy: Bool) {
        #expect((RunNoise.reason(start: start, end: end, cores: cores) != nil) == noisy)
    }

    @Test func theReasonSaysWhatWasSeen() {
        #expect(RunNoise.reason(start: "3.50 2.00 1.00", end: "1.00 1.00 1.00", cores: 2)?.contains("3.5 at the start") == true)
    }
}
