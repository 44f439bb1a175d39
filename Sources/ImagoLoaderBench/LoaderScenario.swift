import Foundation
import ImagoBench
import ImagoConformance
import ImagoTestServer

/// The loader scenario: any loader adapted to the conformance suite (`LoaderUnderTest`),
/// measured against the raw control (`RawControl`: AsyncHTTPClient into Imago's decoder, with no
/// cache, no coalescing and no model). Its rows go into the same results.csv, report.md and
/// report.html as the other scenarios', so `imago bench compare` compares them too.
///
/// Times run from `load()` to the published success. A model that offers `OutcomeObserving`
/// (Imago's adapter does) is timed without the SHA-256 fingerprint its `observe(_:)` computes;
/// any other is timed through `observe(_:)`, its adapter's conversion included.
public struct LoaderScenario: BenchScenario {
    /// `loader`: the CSV `scenario` column of every row.
    public let name = LoaderRows.scenario
    /// What the report says the scenario answers.
    public let question = "How long does an adapted loader take to pixels (network, memory, disk; per fetch strategy), "
        + "how many requests do identical loads make, what throughput does it reach, how much resident memory does it "
        + "take at its peak and keep once released, beside the raw control "
        + "(AsyncHTTPClient into Imago's decoder, nothing in between) and as overhead over it (1.0: none)?"

    /// The loaders measured, one after another.
    public let subjects: [ConformanceSubject]
    /// What to measure; nil (the default): `LoaderBenchPlan(quick:)` of the run.
    public let plan: LoaderBenchPlan?

    /// Measures `subjects` with `plan` (default nil: the run's full or quick plan).
    public init(subjects: [ConformanceSubject], plan: LoaderBenchPlan? = nil) {
        self.subjects = subjects
        self.plan = plan
    }

    /// One unit per round of time to pixels, per crowd round and per throughput run.
    public func plannedUnits(quick: Bool) -> Int {
        let plan = self.plan ?? LoaderBenchPlan(quick: quick)
        return subjects.map { plan.plannedUnits(strategies: max(1, $0.capabilities.fetchStrategies.count)) }.reduce(0, +)
    }

    /// Measures every subject; one whose run fails becomes a skipped row naming the error, and
    /// the next subject still runs.
    public func run(_ context: BenchContext) async throws -> [BenchResult] {
        let plan = self.plan ?? LoaderBenchPlan(quick: context.quick)
        let timed = try DistinctImages.make(count: 1, width: plan.timedImageSize.width,
                                            height: plan.timedImageSize.height, seed: 26)[0]
        let distinct = try DistinctImages.make(count: plan.throughputImages, width: plan.throughputImageSize.width,
                                               height: plan.throughputImageSize.height, seed: 27)
        let scratch = try ScratchDirectory("loader")
        let server = try await TestServer.start()
        let paths = distinct.indices.map { "/loader/throughput/\($0).jpg" }
        for (path, body) in zip(paths, distinct) { server.setRoute(path, Route(body: body, contentType: "image/jpeg")) }
        var rows: [BenchResult] = []
        for subject in subjects {
            do {
                rows += try await Self.measure(subject, plan: plan, server: server, scratch: scratch.url,
                                               timedImage: timed, throughputPaths: paths, warmUpImage: distinct.first ?? timed,
                                               progress: context.progress,
                                               executable: context.executable)
            } catch {
                context.progress.log("loader: \(error)")
                rows.append(BenchResult(scenario: name, parameters: "subject=\(subject.name)", metric: "scenario", unit: "",
                                        direction: .lowerIsBetter, skipped: "subject failed: \(error)"))
            }
        }
        try await server.shutdown()
        return rows
    }

    @MainActor
    static func measure(_ subject: ConformanceSubject, plan: LoaderBenchPlan, server: TestServer, scratch: URL,
                        timedImage: [UInt8], throughputPaths: [String], warmUpImage: [UInt8],
                        progress: ProgressReporter, executable: String) async throws -> [BenchResult] {
        let directory = scratch.appendingPathComponent(subject.name, isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = LoaderSession(subject: subject, url: { server.url(for: $0) }, scratch: directory,
                                    timeout: plan.loadTimeout)
        let run = LoaderSubjectRun(session: session, server: server, plan: plan, control: RawControl(), progress: progress,
                                   timedImage: timedImage, throughputPaths: throughputPaths, warmUpImage: warmUpImage,
                                   // The child is this executable with the same arguments: its entry point
                                   // hands over to the probe before anything else (LoaderBench.serveMemoryProbe).
                                   probeCommand: executable.isEmpty ? nil
                                       : (executable, Array(CommandLine.arguments.dropFirst())))
        let rows = try await run.rows()
        if !session.timedPixelsReadyOnly {
            progress.log("loader: \(subject.name): timed through observe(_:), the adapter's phase conversion included "
                         + "(its models do not offer OutcomeObserving)")
        }
        return rows
    }
}
