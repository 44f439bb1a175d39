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
