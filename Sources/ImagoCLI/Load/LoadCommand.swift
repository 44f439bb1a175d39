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
            Each line is one JSON object, written as soon as it happens (also into a pipe). \
            SIGINT (Ctrl-C) and SIGTERM cancel the loads, remove their temporary files and exit. \
            Exit status: 0 when every source's last load succeeded; 1 when one failed; 64 on bad \
            usage; 73 when --output cannot be written; 130 after SIGINT; 143 after SIGTERM.
            """)

    @Argument(help: "http(s) URLs, file:// URLs or local file paths (schemes are case-insensitive).")
    var sources: [String]

    @Option(help: ArgumentHelp(
        "How bodies are received: data (in memory), file (streamed to a file) or stream (decoded as they arrive). Default: file with --cache-dir, else data.",
        discussion: "With a disk cache, file downloads land in its directory and are renamed into it, and one that breaks mid-body is resumed with Range by the retry or the next run. stream keeps no copy of the body (with a disk cache, it is written beside the decode and stored once it decoded); a retry starts the body again."))
    var strategy: FetchStrategy?

    @Option(help: "The HTTP client (default: the pipeline's default on this platform).")
    var transport: BuiltInTransport = .platformDefault

    @Option(help: "Seconds without receiving anything before a fetch fails (fractions allowed; default 30).")
    var timeout: Double = 30

    @Option(help: "Sources loading at once (default 4).")
    var concurrency = 4

    @Option(help: "Use a disk cache in this directory (downloads then go there too).")
    var cacheDir: String?

    @Option(help: ArgumentHelp(
        "How the disk cache treats HTTP caching headers (default http).",
        discussion: "http: honour Cache-Control, Expires, Last-Modified and validators (RFC 9111); aggressive: store every image except no-store and reuse it without asking."))
    var cachePolicy: HTTPCachePolicy.Mode?

    @Option(help: "Disk entries stay fresh this many seconds after download or revalidation, whatever the server says (fractions allowed; default: the policy decides).")
    var ttl: Double?

    @Flag(help: "Revalidate every disk cache use with a conditional request (except immutable responses while fresh).")
    var alwaysRevalidate = false

    @Flag(help: "Disable the memory cache.")
    var noMemoryCache = false

    @Option(help: "Scale down so the longest side is at most N pixels.")
    var maxPixelSize: Int?

    @Flag(help: "Rotate/flip the pixels as the EXIF orientation says.")
    var applyOrientation = false

    @Option(help: "Write the final image's tightly packed RGBA rows to this file (one source only).")
    var output: String?

    @Option(name: .customLong("repeat"), help: "Load each source K times in this process (origins show the caches).")
    var repetitions = 1

    @Flag(help: "With --strategy stream: publish progressive previews (progressive JPEG scans, Adam7 PNG passes); each shows once in its loading line as \"preview\" with its size and scan or pass number.")
    var previews = false

    @Option(help: "With --previews: the least seconds between two previews of one load (fractions allowed; default 0.25).")
    var previewInterval: Double = 0.25

    @OptionGroup var logging: LoggingOptions

    /// The longest `--ttl` (about 68 years): past it, milliseconds no longer fit a Duration.
    static let maxTTL = Double(Int32.max)

    func validate() throws {
        if sources.isEmpty { throw ValidationError("give at least one URL or path") }
        if repetitions < 1 { throw ValidationError("--repeat must be at least 1") }
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if !(timeout > 0) || !timeout.isFinite { throw ValidationError("--timeout must be a positive number of seconds") }
        if let n = maxPixelSize, n < 1 { throw ValidationError("--max-pixel-size must be at least 1") }
        if previews && strategy != .stream { throw ValidationError("--previews needs --strategy stream: only a streaming decode sees the image before its last byte") }
        if !(previewInterval >= 0) || !(previewInterval <= Self.maxTTL) {
            throw ValidationError("--preview-interval must be a number of seconds from 0 to \(Int(Self.maxTTL))")
        }
        if output != nil && sources.count > 1 { throw ValidationError("--output needs exactly one source") }
        if let ttl, !(ttl >= 0) || !(ttl <= Self.maxTTL) {
            throw ValidationError("--ttl must be a number of seconds from 0 to \(Int(Self.maxTTL))")
        }
        let cacheOptions = [ttl != nil ? "--ttl" : nil, alwaysRevalidate ? "--always-revalidate" : nil,
                            cachePolicy != nil ? "--cache-policy" : nil].compactMap { $0 }
        if cacheDir == nil, let first = cacheOptions.first {
            throw ValidationError("\(first) applies to the disk cache: give --cache-dir too")
        }
    }

    @MainActor
    func run() async throws {
        let signals = TerminationSignal()   // first, so an early Ctrl-C is not lost
        // A closed reader (`imago load … | head -1`) makes writes fail with EPIPE instead of
        // killing the process before it has cleaned up.
        signal(SIGPIPE, SIG_IGN)
        let recorder = EventRecorder()
        // Without a disk cache, downloads go to a directory of this run's own, removed at the
        // end whatever happens: a download file lives until the last reference to its bytes
        // goes, which can be after the pipeline's events say its work ended.
        let downloads = try RunDirectory.make()
        defer { downloads.remove() }
        let httpPolicy = HTTPCachePolicy(mode: cachePolicy ?? .http, timeToLive: ttl.map { .milliseconds(Int(($0 * 1000).rounded())) },
                                          alwaysRevalidate: alwaysRevalidate)
        var configuration = ImagePipeline.Configuration(
            dependencies: .init(transport: transport.make(), memoryCache: noMemoryCache ? nil : MemoryCache(),
                                diskCache: try cacheDir.map { try DiskCache(directory: URL(fileURLWithPath: $0)) }),
            network: .init(fetchStrategy: strategy ?? (cacheDir != nil ? .file : .data), httpCachePolicy: httpPolicy,
                           // Validated positive and finite; from a billion seconds it means never, as before.
                           idleTimeout: timeout < 1e9 ? .seconds(timeout) : FetchRequest.noIdleTimeout,
                           temporaryDirectory: downloads.url),
            diagnostics: .init(eventHandler: recorder.record, logger: logging.pipelineLogger()))
        if previews {
            configuration.previews = PreviewPolicy(minimumInterval: .milliseconds(Int((previewInterval * 1000).rounded())))
        }
        let pipeline = ImagePipeline(configuration: configuration)
        let options = DecodeOptions(maxPixelSize: maxPixelSize, applyOrientation: applyOrientation)
        let plan = LoadPlan(sources: sources, options: options, repetitions: repetitions, concurrency: concurrency)
        let start = ContinuousClock.now
        let work = Task { @MainActor in await plan.run(pipeline) }
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
            printSummary(recorder.events, pipeline.counters.snapshot, plan: plan, outcomes: outcomes, elapsed: ContinuousClock.now - start)
            printError("interrupted by signal \(caught): loads cancelled" + (idle ? "" : "; some work had not ended after 3 s"))
            throw ExitCode(TerminationSignal.exitStatus(for: caught))
        }
        signals.stop()
        let outcomes = await work.value
        printSummary(recorder.events, pipeline.counters.snapshot, plan: plan, outcomes: outcomes, elapsed: ContinuousClock.now - start)
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

    private func printSummary(_ events: [PipelineEvent], _ counters: PipelineCounters.Snapshot, plan: LoadPlan,
                              outcomes: [SourceOutcome], elapsed: Duration) {
        printLine(LoadSummary(events: events, counters: counters, diskCache: cacheDir != nil, loads: plan.loadCount,
                              succeeded: outcomes.reduce(0) { $0 + $1.succeededLoads }, elapsed: elapsed).line)
    }
}

extension FetchStrategy: ExpressibleByArgument {}
extension HTTPCachePolicy.Mode: ExpressibleByArgument {}
