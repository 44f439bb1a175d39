import ArgumentParser
import Foundation
import Imago
import Synchronization

/// `imago load URL|PATH`: runs the loading pipeline through the phase model and prints every
/// published phase as one JSON line, then a summary with per-stage timings.
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load an image through the pipeline and print every published phase as JSON.",
        discussion: "Exit status: 0 when the last load succeeded; 1 when it failed; 64 on bad usage.")

    @Argument(help: "An http(s) URL or a local file path.")
    var source: String

    @Option(help: "How bodies are received: data (in memory) or file (streamed to a temporary file).")
    var strategy: FetchStrategy = .inMemory

    @Option(help: "Use a disk cache in this directory.")
    var cacheDir: String?

    @Flag(help: "Disable the memory cache.")
    var noMemoryCache = false

    @Option(help: "Scale down so the longest side is at most N pixels.")
    var maxPixelSize: Int?

    @Option(help: "Write the final image's tightly packed RGBA rows to this file.")
    var output: String?

    @Option(name: .customLong("repeat"), help: "Load the same source K times in this process (origins show the caches).")
    var repetitions = 1

    func validate() throws {
        if repetitions < 1 { throw ValidationError("--repeat must be at least 1") }
        if let n = maxPixelSize, n < 1 { throw ValidationError("--max-pixel-size must be at least 1") }
    }

    @MainActor
    func run() async throws {
        let events = Mutex<[PipelineEvent]>([])
        let pipeline = ImagePipeline(configuration: .init(
            memoryCache: noMemoryCache ? nil : MemoryCache(),
            diskCache: try cacheDir.map { try DiskCache(directory: URL(fileURLWithPath: $0)) },
            fetchStrategy: strategy,
            eventHandler: { event in events.withLock { $0.append(event) } }))
        let request = ImageRequest(source: Self.parse(source), options: DecodeOptions(maxPixelSize: maxPixelSize))
        var last: ImagePhase = .empty
        var succeeded = 0
        let start = ContinuousClock.now
        for _ in 0..<repetitions {
            last = await loadOnce(request, pipeline)
            if case .success = last { succeeded += 1 }
        }
        printSummary(events: events.withLock { $0 }, succeeded: succeeded, elapsed: ContinuousClock.now - start)
        switch last {
        case .success(let response):
            if let output { try Data(response.pixels.packedBytes()).write(to: URL(fileURLWithPath: output)) }
        case .failure(let error):
            printError("error: \(error)")
            throw ExitCode(1)
        default:
            throw ExitCode(1)
        }
    }

    @MainActor
    private func loadOnce(_ request: ImageRequest, _ pipeline: ImagePipeline) async -> ImagePhase {
        let model = ImageLoadingModel(pipeline: pipeline, request: request)
        let phases = model.phases
        model.load()
        for await phase in phases {
            print(Self.line(for: phase))
            if phase.isTerminal { return phase }
        }
        return model.phase
    }

    static func parse(_ text: String) -> ImageSource {
        if let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            return .url(url)
        }
        return .file(URL(fileURLWithPath: text))
    }

    static func line(for phase: ImagePhase) -> String {
        var line = JSONLine()
        line.add("phase", phase.name)
        switch phase {
        case .empty: break
        case .loading(let progress, _):
            line.add("received", progress?.received ?? 0)
            if let expected = progress?.expected { line.add("expected", expected) }
        case .success(let response):
            line.add("origin", response.origin.rawValue)
            line.add("width", response.pixels.width)
            line.add("height", response.pixels.height)
            line.add("format", response.image.metadata.format.rawValue)
        case .failure(let error):
            line.add("error", error.description)
        }
        return line.text
    }

    /// Total time per stage across all loads, from the pipeline's timestamped events.
    private func printSummary(events: [PipelineEvent], succeeded: Int, elapsed: Duration) {
        func total(_ begin: PipelineEvent.Kind, _ end: PipelineEvent.Kind) -> Double {
            var open: [String: ContinuousClock.Instant] = [:]
            var sum = Duration.zero
            for event in events {
                if event.kind == begin { open[event.key] = event.time }
                if event.kind == end, let started = open.removeValue(forKey: event.key) { sum += event.time - started }
            }
            return sum.milliseconds
        }
        var stages = JSONLine()
        stages.add("fetchMs", total(.fetchStart, .fetchEnd))
        stages.add("firstByteMs", total(.fetchStart, .firstByte))
        stages.add("decodeMs", total(.decodeStart, .decodeEnd))
        var summary = JSONLine()
        summary.add("loads", repetitions)
        summary.add("succeeded", succeeded)
        summary.add("fetches", events.filter { $0.kind == .fetchStart }.count)
        summary.add("decodes", events.filter { $0.kind == .decodeStart }.count)
        summary.add("totalMs", elapsed.milliseconds)
        summary.add("stages", object: stages)
        var line = JSONLine()
        line.add("summary", object: summary)
        print(line.text)
    }
}

extension FetchStrategy: ExpressibleByArgument {}
