import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Imago
import Synchronization

/// The child side of a memory probe: measures the process around the probe's work.
public enum MemoryProbeRunner {
    public static func run(_ probe: MemoryProbe) async throws -> MemoryProbeResult {
        // Touch what every probe needs before the "before" reading, so lazy runtime set-up
        // (Foundation's first file read, the decoder tables) is not charged to the probe.
        _ = ProcessMemory.residentBytes()
        if case .fetch(let url, _, _, let transport, _) = probe { await warmUpNetworking(url, transport: transport) }
        let meter = ResidentMeter()
        let start = ContinuousClock.now
        let owner = ReleaseWatch(start: start)
        let decodedBytes = try await perform(probe, owner: owner)
        let elapsed = ContinuousClock.now - start
        let peak = meter.peakBytes()
        // Wait for the things themselves, not for a moment to pass: the pipeline object, then
        // every pixel buffer the probe created (the meter's finish). Whichever thread drops the
        // last reference frees them, possibly a moment after the result was delivered; reading
        // memory before that counted images about to be freed (held-after varied from 5 to 394
        // MiB between runs of one probe on a loaded machine).
        let released = await owner.waitForRelease()
        let (after, mallocAfter, imagesReleased) = await meter.finish()
        let before = meter.beforeBytes
        let (seconds, attoseconds) = elapsed.components
        return MemoryProbeResult(
            milliseconds: Double(seconds) * 1000 + Double(attoseconds) / 1e15,
            peakGrowthBytes: peak - before, peakResidentBytes: peak, heldAfterBytes: after - before,
            mallocHeldBytes: mallocAfter - meter.mallocBeforeBytes, decodedBytes: decodedBytes, peakWasReset: meter.peakWasReset,
            ownerReleased: released, imagesReleased: imagesReleased, firstPreviewMilliseconds: owner.firstPreview.map { $0.seconds * 1000 })
    }

    /// One tiny request to the probe's server through the probe's transport, so the networking
    /// stack's code and lazy state (AsyncHTTPClient's shared client and NIO's event-loop
    /// threads; or FoundationNetworking, libcurl and its TLS libraries: about 8 MiB of
    /// file-backed pages, measured) are in place before the "before" reading and not counted as
    /// held by the fetch.
    static func warmUpNetworking(_ url: String, transport name: String?) async {
        guard let url = URL(string: url), let transport = Self.transport(name) else { return }
        // One small request through the same transport: its code pages and connection pool are
        // the stack's, not the probe's. The body is a tiny Range so a large image is not read.
        let request = FetchRequest(url: url, headers: ["Range": "bytes=0-0"], idleTimeout: .seconds(5))
        _ = try? await transport.fetch(request) { _ in }
    }

    static func transport(_ name: String?) -> (any ImageTransport)? {
        guard let name else { return BuiltInTransport.platformDefault.make() }
        return BuiltInTransport(rawValue: name)?.make()
    }

    /// Runs the probe's work and returns the decoded size; every result is released on return.
    static func perform(_ probe: MemoryProbe, owner: ReleaseWatch) async throws -> Int {
        switch probe {
        case .decode(let file):
            return try ImageDecoder.decode(contentsOfFile: file, options: DecodeOptions(), cancellation: nil).pixels.byteCount
        case .thumbnail(let file, let maxPixelSize, let method):
            return try Thumbnailer.make(file: file, maxPixelSize: maxPixelSize, method: method).byteCount
        case .fetch(let url, let strategy, let temporaryDirectory, let transportName, let previews):
            guard let strategy = FetchStrategy(rawValue: strategy), let url = URL(string: url),
                  let transport = Self.transport(transportName) else {
                throw BenchError("bad fetch probe \(url) \(strategy) \(transportName ?? "default")")
            }
            var configuration = ImagePipeline.Configuration(
                dependencies: .init(transport: transport, memoryCache: nil),
                network: .init(fetchStrategy: strategy, retryPolicy: RetryPolicy.none, temporaryDirectory: URL(fileURLWithPath: temporaryDirectory)))
            if previews { configuration.previews = PreviewPolicy() }
            let pipeline = ImagePipeline(configuration: configuration)
            owner.watch(pipeline)
            var onPreview: (@Sendable (ImagePreview) -> Void)?
            if previews { onPreview = { _ in owner.previewed() } }
            return try await pipeline.response(for: ImageRequest(source: .url(url)), preview: onPreview).pixels.byteCount
        case .pipelineBatch(let file, let count, let cacheCostLimit):
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let pipeline = ImagePipeline(configuration: .init(
                dependencies: .init(memoryCache: MemoryCache(configuration: .init(costLimit: cacheCostLimit)))))
            owner.watch(pipeline)
            var total = 0
            for index in 0..<count {
                total += try await pipeline.response(for: ImageRequest(source: .data(data, id: "batch-\(index)"))).pixels.byteCount
            }
            return total
        }
    }
}

/// Watches the object a probe's work was done by (its pipeline) without keeping it alive.
final class ReleaseWatch: @unchecked Sendable {   // written once by the probe before it returns
    private weak var object: AnyObject?
    private let start: ContinuousClock.Instant
    private let firstPreviewAt = Mutex<ContinuousClock.Instant?>(nil)

    init(start: ContinuousClock.Instant = .now) { self.start = start }

    /// Time from the probe's start to its first preview (nil: none).
    var firstPreview: Duration? { firstPreviewAt.withLock { $0 }.map { $0 - start } }

    /// Records a preview's arrival (the first one counts).
    func previewed() {
        let now = ContinuousClock.now
        firstPreviewAt.withLock { $0 = $0 ?? now }
    }

    func watch(_ object: AnyObject) { self.object = object }

    /// Waits until the watched object is gone; false when it is still alive after 5 s, i.e.
    /// leaked.
    func waitForRelease() async -> Bool {
        await ResidentMeter.waitUntil { self.object == nil }
    }
}

/// The two ways to make a thumbnail the thumbnail scenario compares.
public enum Thumbnailer {
    public static func make(file: String, maxPixelSize: Int, method: MemoryProbe.ThumbnailMethod) throws -> PixelBuffer {
        switch method {
        case .downsampledDecode:
            return try ImageDecoder.decode(contentsOfFile: file, options: DecodeOptions(maxPixelSize: maxPixelSize)).pixels
        case .fullDecodeThenResize:
            let full = try ImageDecoder.decode(contentsOfFile: file).pixels
            return try full.resized(to: fitting(width: full.width, height: full.height, maxPixelSize: maxPixelSize))
        }
    }

    /// The size whose longest side is `maxPixelSize` with the aspect ratio kept (never upscaled),
    /// rounded as the decoders round.
    public static func fitting(width: Int, height: Int, maxPixelSize: Int) -> PixelSize {
        let longest = max(width, height)
        guard longest > maxPixelSize else { return PixelSize(width: width, height: height) }
        let scale = Double(maxPixelSize) / Double(longest)
        return PixelSize(width: max(1, Int((Double(width) * scale).rounded())),
                         height: max(1, Int((Double(height) * scale).rounded())))
    }
}
