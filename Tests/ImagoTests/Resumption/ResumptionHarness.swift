import Foundation
import ImagoTestServer
import Synchronization
import XCTest
@testable import Imago

/// Shared set-up of the resumable-download tests: a loopback server with a JPEG, a scratch
/// directory (pipelines' temporary directory, or a disk cache's), and pipelines over each transport.
struct ResumptionHarness {
    static let jpeg = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")
    static let otherJPEG = TestCorpus.bytes("jpeg/progressive-420-q90.jpg")
    /// Retries on, with short waits.
    static let quickRetries = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(5), maxDelay: .milliseconds(10))
    /// Both transports, by name, so every check runs once for each.
    static var transports: [(name: String, transport: any ImageTransport)] {
        [("ahc", AsyncHTTPClientTransport.shared), ("urlsession", URLSessionTransport())]
    }

    let server: TestServer
    let scratch: URL

    static func start() async throws -> ResumptionHarness {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imago-resume-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        return ResumptionHarness(server: try await TestServer.start(), scratch: scratch)
    }

    func stop() async throws {
        try await server.shutdown()
        try? FileManager.default.removeItem(at: scratch)
    }

    /// A download-to-file pipeline over `transport`; with `diskCache`, one in `scratch`.
    func pipeline(_ transport: any ImageTransport, retries: RetryPolicy = quickRetries, diskCache: Bool = false,
                  idleTimeout: Duration = .seconds(10), cacheClock: (@Sendable () -> Date)? = nil, cacheSizeLimit: Int = 64 << 20,
                  events: EventKinds? = nil) throws -> ImagePipeline {
        var cacheConfiguration = DiskCache.Configuration(sizeLimit: cacheSizeLimit)
        if let cacheClock { cacheConfiguration.now = cacheClock }
        let cache = diskCache ? try DiskCache(directory: scratch, configuration: cacheConfiguration) : nil
        var configuration = ImagePipeline.Configuration(
            dependencies: .init(transport: transport, memoryCache: nil, diskCache: cache),
            network: .init(fetchStrategy: .file, retryPolicy: retries))
        configuration.network.idleTimeout = idleTimeout
        configuration.network.temporaryDirectory = scratch
        if let events { configuration.diagnostics.eventHandler = { event in events.append(event.kind) } }
        return ImagePipeline(configuration: configuration)
    }

    func request(_ path: String) -> ImageRequest { ImageRequest(source: .url(server.url(for: path))) }

    /// Files the loads left in `scratch` (the disk cache's own `.lock` and entries aside).
    func temporaries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []).filter { $0.hasPrefix(".tmp-") }
    }

    /// Waits until no temporary is left (a fetch may finish its cleanup just after the caller
    /// was released); fails with what is left.
    func expectNoTemporaries(_ what: String, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            try await waitFor(timeout: .seconds(5), file: file, line: line) { temporaries().isEmpty }
        } catch {
            XCTFail("\(what): left \(temporaries())", file: file, line: line)
        }
    }

    /// The Range / If-Range each request for `path` carried, in order (nil: none).
    func ranges(_ path: String) -> [String?] { server.counters.snapshot.requestLog(for: path).map { $0.headers["range"] } }
    func ifRanges(_ path: String) -> [String?] { server.counters.snapshot.requestLog(for: path).map { $0.headers["if-range"] } }
}

/// Pipeline event kinds as they happen (from any thread).
final class EventKinds: Sendable {
    private let kinds = Mutex<[PipelineEvent.Kind]>([])
    func append(_ kind: PipelineEvent.Kind) { kinds.withLock { $0.append(kind) } }
    func count(_ kind: PipelineEvent.Kind) -> Int { kinds.withLock { $0.filter { $0 == kind }.count } }
}
