import ArgumentParser
import Foundation
import Imago

/// `imago show SOURCE...`: SwiftUI's AsyncImage on a terminal. Each source is a tile driven by
/// its own `ImageLoadingModel`, drawn for the phase it is in: a placeholder, a progress bar,
/// progressive previews, the image in Unicode half blocks and 24-bit colour, or the failure
/// with its reason; `r` retries the failed tiles, `q` quits.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show images on the terminal as they load: placeholder, progress, previews, image or failure.",
        discussion: """
            Several sources show as a grid fitted to the terminal and redrawn when it is resized \
            (tiles that do not fit are cancelled until they do). Images are drawn with half \
            blocks in 24-bit colour. --strategy stream --previews shows progressive JPEG scans \
            and Adam7 PNG passes as they arrive. Keys: r retries the failed tiles, q quits. \
            Standard input and output must be a terminal (for a log of the phases, use imago \
            load). Ctrl-C, SIGINT, SIGTERM and SIGHUP cancel the loads and give the terminal \
            back as it was found (settings, cursor, main screen). Exit status: 0 after q; 64 on \
            bad usage or without a terminal; 65 or 66 when --ca-file holds no certificate or \
            cannot be read; 73 when --cache-dir cannot be used (see --ignore-unusable-cache-dir); \
            129, 130 or 143 after SIGHUP, Ctrl-C (SIGINT) or \
            SIGTERM.
            """)

    @Argument(help: "http(s) URLs, file:// URLs or local file paths (schemes are case-insensitive).")
    var sources: [String]

    @OptionGroup var pipelineOptions: PipelineOptions

    func validate() throws {
        if sources.isEmpty { throw ValidationError("give at least one URL or path") }
    }

    @MainActor
    func run() async throws {
        // First, so a signal that arrives while the terminal is being set up is not lost.
        let signals = CaughtSignals([SIGINT, SIGTERM, SIGHUP, SIGWINCH])
        defer { signals.stop() }
        // Before the terminal is taken: an unusable --cache-dir's or a bad --ca-file's line
        // must stay readable.
        let diskCache = try pipelineOptions.openDiskCache()
        let transport = try pipelineOptions.makeTransport()
        let terminal: TerminalSession
        do {
            terminal = try TerminalSession()
        } catch {
            printError("error: \(error)")
            throw ExitCode(64)
        }
        defer { terminal.restore() }
        let recorder = EventRecorder()
        let downloads = try RunDirectory.make()
        defer { downloads.remove() }
        let pipeline = try pipelineOptions.makePipeline(temporaryDirectory: downloads.url, diskCache: diskCache,
                                                        events: recorder.record, transport: transport)

        let (events, continuation) = AsyncStream<ShowEvent>.makeStream()
        let forwarding = Task {
            while let number = await signals.next() {
                continuation.yield(number == SIGWINCH ? .resize : .signal(number))
            }
        }
        let keys = KeyReader(onKey: { continuation.yield(.key($0)) }, onEnd: { continuation.yield(.inputEnded) })
        let grid = ImageGrid(sources: sources, pipeline: pipeline, options: pipelineOptions.decodeOptions,
                             terminal: terminal, events: continuation)
        let outcome = await grid.run(events)

        keys.stop()
        forwarding.cancel()
        // The terminal first: the person is back at the shell while the loads wind down.
        terminal.restore()
        grid.cancelAll()
        // As `imago load` does: the pipeline's fetches and decodes end on their own threads
        // after the cancel, removing their downloads; what is left goes with the run directory.
        let ended = await recorder.waitUntilIdle(timeout: .seconds(3))
        let idle = await downloads.waitUntilEmpty(timeout: .seconds(1)) && ended
        if case .signal(let number) = outcome {
            printError("interrupted by signal \(number): loads cancelled" + (idle ? "" : "; some work had not ended after 3 s"))
            throw ExitCode(CaughtSignals.exitStatus(for: number))
        }
    }
}
