import Testing
@testable import ImagoBench

/// The stream scenario's plan: the slow link only where it asks something new. 40 MP at 2 MB/s
/// repeated 12 MP's question (the ratio to the transfer) and took half of a full `make bench`.
struct StreamingPlanTests {
    @Test func theSlowLinkIsMeasuredAt12MPOnly() {
        #expect(StreamingScenario.bandwidths(quick: false, megapixels: 12) == [2_000_000, 20_000_000])
        #expect(StreamingScenario.bandwidths(quick: false, megapixels: 40) == [20_000_000])
        #expect(StreamingScenario.bandwidths(quick: true, megapixels: 12) == [20_000_000])
    }

    /// Three processes per cell, two on the slow link (paced by the transfer, its ratios
    /// scatter least), one in a quick run.
    @Test func theSlowLinkTakesTwoProcessesPerCell() {
        #expect(StreamingScenario.processes(quick: false, bandwidth: 2_000_000) == 2)
        #expect(StreamingScenario.processes(quick: false, bandwidth: 20_000_000) == 3)
        #expect(StreamingScenario.processes(quick: true, bandwidth: 20_000_000) == 1)
    }

    /// The progress bar's total is the rounds the run makes: per size, its rates, times each
    /// format's cells (three strategies and the transfer, and previews for progressive JPEG),
    /// times the processes per cell.
    @Test func plannedUnitsCountEveryRound() {
        let cells = StreamingScenario.formats().reduce(0) { $0 + StreamingScenario.cells($1).count }
        #expect(cells == 13)
        #expect(StreamingScenario().plannedUnits(quick: false) == cells * (2 + 3 + 3))
        #expect(StreamingScenario().plannedUnits(quick: true) == cells * 1 * 1)
    }
}
