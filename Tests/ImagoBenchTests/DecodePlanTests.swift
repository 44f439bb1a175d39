import Testing
@testable import ImagoBench

/// The decode scenario's plan: every size for Imago and the bare C call, the peers up to the
/// goals' size, cold processes where they say something the warm rows do not. Measuring
/// everything everywhere took 13 of a full `make bench`'s 28 minutes.
struct DecodePlanTests {
    @Test func coldProcessesRunAtTheGoalSizeOnly() {
        #expect(DecodeScenario.sizes(quick: false).map { DecodeScenario.coldProcesses(quick: false, megapixels: $0) } == [0, 0, 5, 0])
        #expect(DecodeScenario.sizes(quick: true).map { DecodeScenario.coldProcesses(quick: true, megapixels: $0) } == [0, 3])
        #expect(DecodeScenario.coldSizes.contains(Double(GoalCheck.goalSize.dropLast(2))!), "the cold-process goals' size")
    }

    @Test func fortyMegapixelsTakeTheFewestSamplesACompareJudges() {
        #expect(DecodeScenario.plan(quick: false, megapixels: 12).minSamples == 8)
        #expect(DecodeScenario.plan(quick: false, megapixels: 40).minSamples == RunComparison.minimumSamples)
        #expect(DecodeScenario.plan(quick: false, megapixels: 40).warmUp == 1)
        #expect(DecodeScenario.plan(quick: false, megapixels: 0.25).maxSamples == 20)
        #expect(DecodeScenario.plan(quick: true, megapixels: 12).minSamples == RunComparison.minimumSamples)
    }

    /// No cold-process rows, not empty ones, where the plan runs none.
    @Test func aBenchmarkWithoutColdProcessesListsNoColdVariants() {
        let warmOnly = DecodeBenchmark(plan: .quick, coldProcesses: 0, executable: "/bin/false")
        #expect(warmOnly.variants(kind: "png-rgb8").map(\.state) == ["fresh", "warm", "fresh-pages", "fresh"])
        let withCold = DecodeBenchmark(plan: .quick, coldProcesses: 3, executable: "/bin/false")
        #expect(withCold.variants(kind: "png-rgb8").map(\.state).last == "cold-process")
    }

    /// The progress bar's total: per size and format, two groups of the plan's minimum rounds
    /// plus the cold processes.
    @Test func plannedUnitsFollowThePlanPerSize() {
        #expect(DecodeScenario().plannedUnits(quick: false) == 5 * (2 * 8 + 2 * 8 + (2 * 8 + 5) + 2 * 5))
        #expect(DecodeScenario().plannedUnits(quick: true) == 5 * (2 * 5 + (2 * 5 + 3)))
    }
}

/// The decode chart draws what the plan ran: no bar where a variant is not run at a size, "n/a"
/// where it ran and was skipped.
struct DecodeChartTests {
    private func row(_ size: String, _ decoder: String, _ state: String, _ rate: Double?) -> BenchResult {
        .decodeRow("png-rgb8", size, decoder, state, rate)
    }

    @Test func aVariantTheSizeDoesNotRunHasNoBar() throws {
        let chart = try #require(ReportCharts.decodeThroughput([
            row("12MP", "imago", "fresh", 90), row("12MP", "c-direct", "warm", 40), row("12MP", "pillow", "warm-loop", nil),
            row("12MP", "imago", "cold-process", 80), row("12MP", "pillow", "cold-process", nil),
            row("40MP", "imago", "fresh", 85), row("40MP", "c-direct", "warm", 41),
        ]))
        #expect(chart.groups.map(\.label) == ["png-rgb8 12MP", "png-rgb8 40MP"])
        #expect(chart.groups[0].bars.map(\.series) == ["imago fresh", "c-direct warm", "pillow warm-loop", "imago cold-process", "pillow cold-process"])
        #expect(chart.groups[0].bars.map(\.value) == [90, 40, nil, 80, nil], "skipped rows say n/a")
        #expect(chart.groups[1].bars.map(\.series) == ["imago fresh", "c-direct warm"])
        #expect(chart.svg.components(separatedBy: ">n/a<").count - 1 == 2)
    }
}
