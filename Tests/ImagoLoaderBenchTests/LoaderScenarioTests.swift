import Foundation
import ImagoBench
import ImagoConformance
@testable import ImagoLoaderBench
import Testing

/// A tiny run of the loader scenario against `FakeLoader`: which rows exist, that every
/// overhead ratio comes from the measured samples, and "n/a" for a missing capability. No
/// timing thresholds: what is checked holds on any machine.
@Suite struct LoaderScenarioTests {
    static let plan: LoaderBenchPlan = {
        var plan = LoaderBenchPlan(quick: true)
        plan.timeRounds = 2
        plan.crowds = [1, 3]
        plan.crowdRounds = 1
        plan.throughputImages = 4
        plan.concurrencies = [1, 2]
        plan.throughputRounds = 2
        plan.timedImageSize = (64, 48)
        plan.throughputImageSize = (32, 24)
        plan.loadTimeout = .seconds(30)
        // No memory probes: they start the bench's executable again, and a test's is the test runner.
        plan.memoryRounds = 0
        plan.cancelRounds = 1
        // Generous: a verdict must not flip on a busy machine (the fake's cancel does close).
        plan.cancelCloseTimeout = .seconds(30)
        return plan
    }()

    /// `subjects` through the scenario with `plan` (default `Self.plan`), the bench's executable
    /// being `executable` (default none: memory probes cannot start).
    static func run(_ subjects: [ConformanceSubject], plan: LoaderBenchPlan = plan,
                    executable: String = "") async throws -> [BenchResult] {
        let context = BenchContext(quick: true, inputsDirectory: FileManager.default.temporaryDirectory.path,
                                   executable: executable, peers: [], progress: ProgressReporter(isTerminal: false))
        return try await LoaderScenario(subjects: subjects, plan: plan).run(context)
    }

    /// `Self.plan` with one memory round over 2 images.
    static var memoryPlan: LoaderBenchPlan {
        var plan = Self.plan
        plan.memoryRounds = 1
        plan.memoryImages = 2
        return plan
    }

    static func row(_ rows: [BenchResult], _ parameters: String, _ metric: String) throws -> BenchResult {
        try #require(rows.first { $0.parameters == parameters && $0.metric == metric },
                     "no row \(parameters) \(metric) in \(rows.map { "\($0.parameters) \($0.metric)" })")
    }

    @Test func aQuickRunHasEveryFigureBesideTheControlAndItsOverhead() async throws {
        let rows = try await Self.run([FakeLoader.subject])
        let base = "subject=fake-memory strategy=default size=64x48"
        let network = try Self.row(rows, base + " source=network variant=loader", "time-to-pixels")
        let control = try Self.row(rows, base + " source=network variant=raw-control", "time-to-pixels")
        let overhead = try Self.row(rows, base + " source=network", ControlOverhead.metric)
        #expect(network.samples.count == 2 && control.samples.count == 2)
        #expect(overhead.samples == zip(network.samples, control.samples).map { $0 / $1 })

        // The memory hit is set beside the control's network load: the control has no cache.
        let memory = try Self.row(rows, base + " source=memory variant=loader", "time-to-pixels")
        let memoryOverhead = try Self.row(rows, base + " source=memory", ControlOverhead.metric)
        #expect(memory.samples.count == 2)
        #expect(memoryOverhead.samples == zip(memory.samples, control.samples).map { $0 / $1 })

        for crowd in [1, 3] {
            let parameters = "subject=fake-memory identical-loads=\(crowd)"
            let loader = try Self.row(rows, parameters + " variant=loader", "requests")
            let controlRequests = try Self.row(rows, parameters + " variant=raw-control", "requests")
            // The fake does not coalesce: one request per load, as the control.
            #expect(loader.samples == [Double(crowd)] && controlRequests.samples == [Double(crowd)])
            #expect(try Self.row(rows, parameters, ControlOverhead.metric).samples == [1])
        }

        for concurrency in [1, 2] {
            let parameters = "subject=fake-memory images=4 concurrency=\(concurrency)"
            let loader = try Self.row(rows, parameters + " variant=loader", "throughput")
            let controlRate = try Self.row(rows, parameters + " variant=raw-control", "throughput")
            #expect(loader.unit == "images/s" && loader.direction == .higherIsBetter && loader.samples.count == 2)
            // Rates: the control's rate over the loader's, so above 1 still means the loader costs more.
            #expect(try Self.row(rows, parameters, ControlOverhead.metric).samples
                    == zip(loader.samples, controlRate.samples).map { $1 / $0 })
        }
        #expect(rows.allSatisfy { $0.scenario == "loader" })
    }

    @Test func cancelsAreTimedToTheServerSeeingTheRequestEndBesideTheControl() async throws {
        let rows = try await Self.run([FakeLoader.subject])
        for point in ["before-head", "50%-of-body"] {
            let parameters = "subject=fake-memory strategy=default point=\(point) size=64x48"
            let loader = try Self.row(rows, parameters + " variant=loader", "cancel-to-server-close")
            let control = try Self.row(rows, parameters + " variant=raw-control", "cancel-to-server-close")
            #expect(loader.unit == "ms" && loader.samples.count == 1 && control.samples.count == 1)
            #expect(try Self.row(rows, parameters + " variant=loader", "server-saw-close").samples == [1])
            #expect(try Self.row(rows, parameters + " variant=raw-control", "server-saw-close").samples == [1])
            // Two figures of a millisecond or so: no ratio of them.
            #expect(!rows.contains { $0.parameters == parameters && $0.metric == ControlOverhead.metric })
        }
    }

    @Test func aLoaderWhoseCancelLeavesTheRequestRunningIsNotApplicable() async throws {
        var plan = Self.plan
        plan.cancelCloseTimeout = .milliseconds(200)   // the verdict is the same for any wait: it never closes
        plan.cancelPoints = [0.5]
        let rows = try await Self.run([FakeLoader.nonCancelling], plan: plan)
        let parameters = "subject=fake-no-cancel strategy=default point=50%-of-body size=64x48"
        let loader = try Self.row(rows, parameters + " variant=loader", "cancel-to-server-close")
        #expect(loader.skipped == "n/a: the server never saw fake-no-cancel close the request within 0.2 seconds "
                + "of cancel() (0 of 1 cancels)", "\(loader.skipped ?? "")")
        #expect(try Self.row(rows, parameters + " variant=loader", "server-saw-close").samples == [0])
    }

    @Test func memoryWithoutAnExecutableToStartAgainIsNotApplicable() async throws {
        let rows = try await Self.run([FakeLoader.subject], plan: Self.memoryPlan)
        let parameters = "subject=fake-memory images=2 concurrency=8 size=32x24"
        for metric in ["peak-rss-growth", "held-after"] {
            let row = try Self.row(rows, parameters + " variant=loader", metric)
            #expect(row.skipped?.hasPrefix("n/a: no executable to measure memory in a fresh process") == true,
                    "\(row.skipped ?? "")")
        }
    }

    @Test func aMemoryProbeThatFailsSkipsTheMemoryRowsOnly() async throws {
        // An executable that exits 1 at once, whatever it is given: every probe fails.
        let rows = try await Self.run([FakeLoader.subject], plan: Self.memoryPlan, executable: "/bin/false")
        let parameters = "subject=fake-memory images=2 concurrency=8 size=32x24 variant=loader"
        for metric in ["peak-rss-growth", "held-after"] {
            let row = try Self.row(rows, parameters, metric)
            #expect(row.skipped == "fake-memory: measuring the loader's memory in a fresh process failed: exit 1 without a reading",
                    "\(row.skipped ?? "")")
        }
        #expect(!rows.contains { $0.metric == "scenario" }, "the subject's run did not fail")
        #expect(rows.contains { $0.metric == "throughput" && $0.statistics != nil })
    }

    @Test func aMissingCapabilityIsNotApplicableWithItsReason() async throws {
        let rows = try await Self.run([FakeLoader.subject])
        let base = "subject=fake-memory strategy=default size=64x48 source=disk"
        for row in [try Self.row(rows, base + " variant=loader", "time-to-pixels"),
                    try Self.row(rows, base, ControlOverhead.metric)] {
            #expect(row.statistics == nil && row.samples.isEmpty)
            #expect(row.skipped == "n/a: fake-memory declares no disk cache (.diskCache)")
        }
    }

    @Test func aFailingSubjectBecomesASkippedRowAndTheNextStillRuns() async throws {
        let broken = ConformanceSubject(name: "broken", capabilities: []) { _ in
            throw CocoaError(.fileNoSuchFile)
        }
        let rows = try await Self.run([broken, FakeLoader.subject])
        let skipped = try Self.row(rows, "subject=broken", "scenario")
        #expect(skipped.skipped?.contains("broken: the adapter could not make a loader") == true, "\(skipped.skipped ?? "")")
        #expect(rows.contains { $0.parameters.hasPrefix("subject=fake-memory") && $0.statistics != nil })
    }

    @Test func subjectsAreChosenByNameOrCommaListAndAnUnknownNameListsTheKnownOnes() throws {
        let other = ConformanceSubject(name: "other", capabilities: []) { _ in FakeLoader() }
        let all = [FakeLoader.subject, other]
        #expect(try LoaderBench.select(["other,fake-memory"], from: all).map(\.name) == ["other", "fake-memory"])
        #expect(try LoaderBench.select(["fake-memory"], from: all).map(\.name) == ["fake-memory"])
        #expect(throws: LoaderBenchError.unknownSubject("nope", known: ["fake-memory", "other"])) {
            try LoaderBench.select(["nope"], from: all)
        }
        #expect(LoaderBenchError.unknownSubject("nope", known: ["a", "b"]).description == "unknown subject nope; known: a, b")
        #expect(LoaderBenchError.cancelPointNotReached(who: "raw control", path: "/c.jpg", after: .seconds(60)).description
                == "raw control: the load of /c.jpg to be cancelled did not reach the server's hold point within 60.0 seconds")
    }
}
