import ArgumentParser
import Foundation
import Imago

/// `imago load SOURCE...`: runs the loading pipeline through the phase model and prints every
/// published phase as one JSON line tagged with its source, then a summary with per-stage timings.
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load images through the pipeline and print every published phase as JSON.",
        discussion: """
            Each line is one JSON object, written as soon as it happens (also into a pipe). With \
            --previews, each new preview shows once in its loading line as "preview" with its size \
            and scan or pass number. \
            With --cache-dir, a stale-while-revalidate entry is shown at once and revalidated in \
            the background; the command waits for those revalidations before it exits and prints \
            one "backgroundRevalidation" line for each. \
            SIGINT (Ctrl-C) and SIGTERM cancel the loads, remove their temporary files and exit. \
            Exit status: 0 when every source's last load succeeded; 1 when one failed; 64 on bad \
            usage; 65 or 66 when --ca-file holds no PEM certificate or cannot be read; 73 when \
            --output cannot be written or --cache-dir cannot be used (one line on stderr: \
            "imago: cannot use the cache directory DIR: REASON"; see --ignore-unusable-cache-dir); \
            130 after SIGINT; 143 after SIGTERM.
            """)

    @Argument(help: "http(s) URLs, file:// URLs or local file paths (schemes are case-insensitive).")
    var sources: [String]

    @OptionGroup var pipelineOptions: PipelineOptions

    @Option(help: "Sources loading at once (default 4).")
    var concurrency = 4

    @Option(help: "Write the final image's tightly packed RGBA rows to this file (one source only).")
    var output: String?

    @Option(name: .customLong("repeat"), help: "Load each source K times in this process (origins show the caches; default 1).")
    var repetitions = 1

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if sources.isEmpty { throw ValidationError("give at least one URL or path") }
        if repetitions < 1 { throw ValidationError("--repeat must be at least 1") }
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if output != nil && sources.count > 1 { throw ValidationError("--output needs exactly one source") }
    }

    @MainActor
    func run() async throws {
        let signals = CaughtSignals()   // first, so an early Ctrl-C is not lost
        // A closed reader (`imago load … | head -1`) makes writes fail with EPIPE instead of
        // killing the process before it has cleaned up.
        signal(SIGPIPE, SIG_IGN)
        let diskCache = try pipelineOptions.openDiskCache()   // an unusable one: one line, exit 73
        let recorder = EventRecorder()
        // Without a disk cache, downloads go to a directory of this run's own, removed at the
        // end whatever happens: a download file lives until the last reference to its bytes
        // goes, which can be after the pipeline's events say its work ended.
        let downloads = try RunDirectory.make()
        defer { downloads.remove() }
        let pipeline = try pipelineOptions.makePipeline(temporaryDirectory: downloads.url, diskCache: diskCache, events: recorder.record,
                                                        logger: logging.pipelineLogger())
        let options = pipelineOptions.decodeOptions
        let plan = LoadPlan(sources: sources, options: options, repetitions: repetitions, concurrency: concurrency,
                            rememberedFailures: { recorder.count(.rememberedFailure, key: $0) })
        let start = ContinuousClock.now
        // The loads, then the revalidations stale-while-revalidate started: their answers are
        // stored before the process ends, for the next run to see.
        let work = Task { @MainActor in
            let outcomes = await plan.run(pipeline)
            for revalidation in await pipeline.waitForBackgroundRevalidations() {
                printLine(LoadLines.backgroundRevalidation(revalidation))
            }
            return outcomes
        }
        // Whichever ends first: the loads, or a signal (the wait for one ends when cancelled).
        let caught: Int32? = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { _ = await work.value; return nil }
            group.addTask { await signals.next() }
            let first = await group.next() ?? nil
            // Awaiting a task's value does not pass cancellation on: cancel the loads
            // themselves, or the group would wait for them to finish.
            if first != nil { work.cancel() }
            group.cancelAll()
            return first
        }
        if let caught {
            let outcomes = await work.value
            // The pipeline's fetches and decodes end on their own threads after the cancel,
            // removing their downloads; what is still there after the wait goes with the run's
            // directory. (With --cache-dir, a leftover is the cache's sweep's.)
            let ended = await recorder.waitUntilIdle(timeout: .seconds(3))
            let idle = await downloads.waitUntilEmpty(timeout: .seconds(1)) && ended
            printSummary(recorder.events, pipeline, plan: plan, outcomes: outcomes, elapsed: ContinuousClock.now - start)
            printError("interrupted by signal \(caught): loads cancelled" + (idle ? "" : "; some work had not ended after 3 s"))
            throw ExitCode(CaughtSignals.exitStatus(for: caught))
        }
        signals.stop()
        let outcomes = await work.value
        printSummary(recorder.events, pipeline, plan: plan, outcomes: outcomes, elapsed: ContinuousClock.now - start)
        var failed = false
        for outcome in outcomes {
            if case .failure(let error) = outcome.last {
                printError("error: \(outcome.source): \(error.detail)")
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
        if let output, case .success(let response)? = outcomes.first?.last {
            do {
                try PixelOutput.write(response.pixels, to: output)
            } catch {
                printError("error: --output: \(error)")
                throw ExitCode(PixelOutput.failureStatus)
            }
        }
    }

    private func printSummary(_ events: [PipelineEvent], _ pipeline: ImagePipeline, plan: LoadPlan,
                              outcomes: [SourceOutcome], elapsed: Duration) {
        // The pipeline's, not --cache-dir's: with --ignore-unusable-cache-dir there may be none.
        let diskCache = pipeline.configuration.dependencies.diskCache != nil
        printLine(LoadSummary(events: events, counters: pipeline.counters.snapshot, diskCache: diskCache, loads: plan.loadCount,
                              succeeded: outcomes.reduce(0) { $0 + $1.succeededLoads }, elapsed: elapsed).line)
    }
}
