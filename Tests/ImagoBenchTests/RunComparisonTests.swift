import Testing
@testable import ImagoBench

/// Matching rows across runs, the verdicts without enough data, and the exit statuses.
@Suite struct RunComparisonTests {
    private func measured(_ metric: String, _ samples: [Double], scenario: String = "fetch",
                          direction: MetricDirection = .lowerIsBetter) -> BenchResult {
        BenchResult(scenario: scenario, parameters: "size=12MP", metric: metric, unit: "ms", direction: direction, samples: samples)
    }

    private func skipped(_ metric: String, _ reason: String) -> BenchResult {
        BenchResult(scenario: "fetch", parameters: "size=12MP", metric: metric, unit: "ms", direction: .lowerIsBetter,
                    skipped: reason)
    }

    private let steady: [Double] = [100, 101, 99, 100, 102, 98, 100]

    @Test func rowsOnOneSideAreListedAndSkippedRowsStaySkipped() {
        let base = [measured("kept", steady), measured("gone", steady), skipped("both", "no Pillow"),
                    measured("now-skipped", steady), skipped("now-measured", "no nginx")]
        let new = [measured("fresh", steady), skipped("both", "no Pillow"), skipped("now-skipped", "no nginx"),
                   measured("now-measured", steady), measured("kept", steady)]
        let comparison = RunComparison(base: base, new: new)
        let verdicts = Dictionary(uniqueKeysWithValues: comparison.rows.map { ($0.key.metric, $0.verdict) })
        #expect(comparison.rows.map(\.key.metric) == ["kept", "gone", "both", "now-skipped", "now-measured", "fresh"])
        #expect(verdicts == ["kept": .withinNoise, "gone": .removed, "both": .skipped, "now-skipped": .removed,
                             "now-measured": .added, "fresh": .added])
        let notes = Dictionary(uniqueKeysWithValues: comparison.rows.map { ($0.key.metric, $0.note) })
        #expect(notes["gone"] == "not in NEW")
        #expect(notes["now-skipped"] == "skipped in NEW: no nginx")
        #expect(notes["now-measured"] == "skipped in BASE: no nginx")
        #expect(notes["both"] == "no Pillow")
        #expect(comparison.status == .regression)   // a removed figure, like bench-check's missing one
    }

    @Test func anAddedRowAloneIsAnImprovementStatus() {
        let comparison = RunComparison(base: [measured("kept", steady)], new: [measured("kept", steady), measured("fresh", steady)])
        #expect(comparison.status == .improvement)
    }

    @Test(arguments: [1, 4]) func fewerThanFiveSamplesGetNoVerdict(count: Int) {
        let comparison = RunComparison(base: [measured("t", Array(repeating: 100, count: count))],
                                       new: [measured("t", Array(repeating: 200, count: count))])
        #expect(comparison.rows[0].verdict == .tooFewSamples)
        #expect(comparison.rows[0].change == 1)   // still shown
        #expect(comparison.rows[0].interval == nil)
        #expect(comparison.status == .within)
    }

    @Test func fiveSamplesAreEnoughForAVerdict() {
        let comparison = RunComparison(base: [measured("t", Array(repeating: 100, count: 5))],
                                       new: [measured("t", Array(repeating: 200, count: 5))])
        #expect(comparison.rows[0].verdict == .worse)
    }

    /// Identical constant samples (a count that did not move): an interval of exactly 0, no change.
    @Test func identicalConstantsAreWithinNoise() {
        let counts = Array(repeating: 12.0, count: 6)
        let row = RunComparison(base: [measured("requests", counts)], new: [measured("requests", counts)]).rows[0]
        #expect(row.verdict == .withinNoise)
        #expect(row.interval == 0...0)
    }

    /// From a median of 0 (no OOM kills) any clear change counts; the relative change is undefined.
    @Test func aChangeFromZeroHasNoPercentButAVerdict() {
        let row = RunComparison(base: [measured("oom-kills", Array(repeating: 0, count: 6))],
                                new: [measured("oom-kills", Array(repeating: 2, count: 6))]).rows[0]
        #expect(row.change == nil && row.interval == nil)
        #expect(row.verdict == .worse)
    }

    @Test func theThresholdOverrideApplies() {
        let base = measured("t", [100, 100.5, 99.5, 100, 100.2, 99.8]), new = measured("t", [103, 103.5, 102.5, 103, 103.2, 102.8])
        #expect(RunComparison(base: [base], new: [new]).rows[0].verdict == .withinNoise)   // +3% < 5%
        #expect(RunComparison(base: [base], new: [new], threshold: 0.02).rows[0].verdict == .worse)
        #expect(RunComparison(base: [base], new: [new], threshold: 0.02).rows[0].threshold.relative == 0.02)
    }

    /// A cancellation that moves from 0.1 to 0.4 ms between runs (what A/A runs of one build
    /// showed) is noise; one that slows by 30 ms is a regression; a decode row keeps 5%.
    @Test func eventLatenciesNeedTwentyMillisecondsAndHalfAgain() {
        let fast = measured("cancel-to-task-end", [0.1, 0.11, 0.09, 0.1, 0.12, 0.1], scenario: "cancellation")
        let wobbled = measured("cancel-to-task-end", [0.4, 0.41, 0.39, 0.4, 0.42, 0.4], scenario: "cancellation")
        let slowed = measured("cancel-to-task-end", [30.1, 30.2, 30, 30.1, 30.3, 30.1], scenario: "cancellation")
        let noise = RunComparison(base: [fast], new: [wobbled]).rows[0]
        #expect(noise.verdict == .withinNoise && noise.threshold == .eventLatency)
        #expect(RunComparison(base: [fast], new: [slowed]).rows[0].verdict == .worse)
        #expect(RunComparison(base: [fast], new: [slowed], threshold: 0.02).rows[0].threshold.absolute == 20)
        let coalesced = measured("latency", [14.6, 14.8, 14.5, 14.6, 14.7], scenario: "coalescing")
        let doubled = measured("latency", [30.7, 30.9, 30.6, 30.7, 30.8], scenario: "coalescing")
        #expect(RunComparison(base: [coalesced], new: [doubled]).rows[0].verdict == .withinNoise)
        #expect(ChangeThreshold.default(for: RowKey(measured("t", steady)), unit: "ms") == .timing)
        // The loader scenario's cancels are the same kind of event.
        let loaderCancel = RowKey(scenario: "loader", parameters: "subject=x variant=loader", metric: "cancel-to-server-close")
        #expect(ChangeThreshold.default(for: loaderCancel, unit: "ms") == .eventLatency)
        let loaderTime = RowKey(scenario: "loader", parameters: "subject=x variant=loader", metric: "time-to-pixels")
        #expect(ChangeThreshold.default(for: loaderTime, unit: "ms") == .timing)
    }

    /// The CPU-bound scenarios' times and rates get the machine-noise threshold, their instruction
    /// rows 1%, their memory rows the memory gate's: a 20% slower decode on this VM is no verdict.
    @Test func cpuBoundScenariosHaveThresholdsOfTheirOwn() {
        let decode = RowKey(scenario: "decode", parameters: "format=png-rgb8 size=12MP decoder=imago state=fresh", metric: "throughput")
        let thumbnail = RowKey(scenario: "thumbnails", parameters: "format=png-rgb8 size=12MP method=downsampled-decode", metric: "time")
        let counted = RowKey(scenario: "decode", parameters: "format=png-rgb8 size=0.25MP decoder=imago state=fresh", metric: "instructions")
        let thumbnailMemory = RowKey(scenario: "thumbnails", parameters: "format=png-rgb8 size=12MP method=downsampled-decode",
                                     metric: "peak-rss-growth")
        #expect(ChangeThreshold.default(for: decode, unit: "MP/s") == .cpuBoundTiming)
        #expect(ChangeThreshold.default(for: thumbnail, unit: "ms") == .cpuBoundTiming)
        #expect(ChangeThreshold.default(for: counted, unit: "instr/px") == .instructions)
        #expect(ChangeThreshold.default(for: thumbnailMemory, unit: "MiB") == .memory)
        let slower = RunComparison(base: [measured("time", steady, scenario: "thumbnails")],
                                   new: [measured("time", steady.map { $0 * 1.2 }, scenario: "thumbnails")])
        #expect(slower.rows[0].verdict == .withinNoise)
        #expect(slower.rows[0].change.map { abs($0 - 0.2) < 0.01 } == true, "still shown: \(String(describing: slower.rows[0].change))")
    }

    @Test func reportsNameEveryRowAndTheHTMLIsSelfContained() {
        let comparison = RunComparison(base: [measured("a<b", steady), skipped("s", "x & y")],
                                       new: [measured("a<b", steady.map { $0 * 1.2 }), skipped("s", "x & y")])
        let lines = ComparisonReport.lines(comparison)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("WORSE"))
        #expect(lines.last == "bench compare: 1 worse, 1 skipped: a regression (exit 2)")
        let markdown = ComparisonReport.markdown(comparison, base: "Reports/a", new: "Reports/b")
        #expect(markdown.split(separator: "\n").filter { $0.hasPrefix("| fetch") }.count == 2)
        let html = ComparisonReport.html(comparison, base: "Reports/a", new: "Reports/b")
        #expect(html.contains("<td>a&lt;b</td>") && html.contains("x &amp; y"))
        #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://") && !html.contains("src="))
        #expect(html.contains("<tr class=\"worse\">"))
    }

    /// Instruction rows: one build counts alike (within noise), 10% more work is worse at the
    /// 1% threshold, and the bare C call's count is the group's unjudged reference.
    @Test func instructionCountsAreJudgedAtOnePercent() {
        func counted(_ decoder: String, _ perPixel: Double) -> BenchResult {
            BenchResult(scenario: "decode", parameters: "format=jpeg-baseline size=0.25MP decoder=\(decoder) state=x",
                        metric: "instructions", unit: "instr/px", direction: .lowerIsBetter,
                        samples: Array(repeating: perPixel, count: 5))
        }
        let base = [counted("imago", 40.0), counted("c-direct", 38.0)]
        let same = RunComparison(base: base, new: [counted("imago", 40.0), counted("c-direct", 38.0)])
        #expect(same.rows.map(\.verdict) == [.withinNoise, .reference])
        #expect(same.status == .within)
        let planted = RunComparison(base: base, new: [counted("imago", 44.0), counted("c-direct", 38.0)])
        #expect(planted.rows.map(\.verdict) == [.worse, .reference])
        #expect(planted.rows[0].threshold == .instructions)
        #expect(planted.status == .regression)
        let half = RunComparison(base: base, new: [counted("imago", 40.2), counted("c-direct", 38.0)])
        #expect(half.rows[0].verdict == .withinNoise, "0.5% is under the threshold")
    }
}
