import Foundation
import ImagoConformance
import ImagoTestServer
import ImagoTestSupport
import Synchronization
import Testing
@testable import Imago

/// One transport with one fetch strategy: the argument of every parameterised nginx test. Each
/// has its own query string, so nginx's access log tells the requests of combinations apart.
struct NginxCombination: Sendable, CustomStringConvertible, CustomTestStringConvertible {
    let transport: TransportCase
    let strategy: FetchStrategy
    /// `?via=TRANSPORT-STRATEGY`, appended to every URL the combination requests.
    var query: String { "?via=\(transport.name)-\(strategy.rawValue)" }
    var description: String { "\(transport.name)/\(strategy.rawValue)" }
    var testDescription: String { description }

    /// Every transport in `TestTransports.all` (in list order) with each fetch strategy.
    static let all: [NginxCombination] = TestTransports.all.flatMap { transport in
        FetchStrategy.allCases.map { NginxCombination(transport: transport, strategy: $0) }
    }

    /// Skips this test case, saying why, when its transport lacks `capability`; the other
    /// combinations run in full.
    func require(_ capability: TransportCase.Limitation) throws {
        try transport.require(capability)
    }
}

extension TimedSuites {
    /// The nginx integration suites (in `TimedSuites`: several time loads against nginx's rate
    /// limit or a stall). Skipped where nginx is not installed (`make deps` installs it).
    @Suite(.nginxInstalled) enum NginxTests {}
}

/// One nginx test case's world: a real nginx started for it, a directory for the pipelines'
/// download temporaries, pipelines over a combination, and nginx's access log as the request
/// counter. ``with(_:files:_:)`` stops nginx and removes the directory however the test ends.
final class NginxFixture: Sendable {
    let nginx: NginxServer
    /// Every pipeline's `temporaryDirectory`: download-to-file temporaries are made here.
    let downloads: URL

    /// Retries on, with short waits: a retry that should not happen shows up in the log at once.
    static let quickRetries = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(10), maxDelay: .milliseconds(20))

    private init(nginx: NginxServer, downloads: URL) {
        self.nginx = nginx
        self.downloads = downloads
    }

    /// Starts nginx with `locations` and `files` (and an HTTPS listener with `tls`), skipping
    /// the test where nginx cannot run, runs `body`, then stops nginx and removes the downloads
    /// directory.
    static func with(_ locations: [NginxLocation], files: [String: [UInt8]] = [:], tls: NginxTLS? = nil,
                     _ body: (NginxFixture) async throws -> Void) async throws {
        try await TemporaryDirectory.with("imago-nginx-downloads") { downloads in
            let nginx = try await NginxServer.startOrSkip(.init(locations: locations, files: files, tls: tls))
            do {
                try await body(NginxFixture(nginx: nginx, downloads: downloads))
            } catch {
                await nginx.stop()
                throw error
            }
            await nginx.stop()
        }
    }

    /// A pipeline over the combination's transport (or `transport`, one of the combination's
    /// kind made otherwise) and strategy, without a memory cache (every load is a fetch).
    func pipeline(_ combination: NginxCombination, retryPolicy: RetryPolicy = quickRetries,
                  clock: any Clock<Duration> = ContinuousClock(), idleTimeout: Duration = .seconds(10),
                  transport: (any ImageTransport)? = nil) -> ImagePipeline {
        ImagePipeline(configuration: .init(
            dependencies: .init(transport: transport ?? combination.transport.make(), memoryCache: nil, clock: PipelineClock(sleepingOn: clock)),
            network: .init(fetchStrategy: combination.strategy, retryPolicy: retryPolicy, idleTimeout: idleTimeout, temporaryDirectory: downloads),
            memory: .init(respondsToPressure: false)))
    }

    /// `path` plus the combination's query, on nginx's 127.0.0.1 listener.
    func uri(_ path: String, _ combination: NginxCombination) -> String { path + combination.query }

    func request(_ path: String, _ combination: NginxCombination) -> ImageRequest {
        ImageRequest(source: .url(nginx.url(for: uri(path, combination))))
    }

    /// The load's outcome; progress reports are collected into `progress` when given.
    /// (Static, so a test can run it in a task of its own.)
    static func load(_ pipeline: ImagePipeline, _ request: ImageRequest,
                     progress: ProgressReports? = nil) async -> Result<ImageResponse, ImageLoadingError> {
        do throws(ImageLoadingError) {
            return .success(try await pipeline.response(for: request) { progress?.append($0) })
        } catch {
            return .failure(error)
        }
    }

    func load(_ pipeline: ImagePipeline, _ request: ImageRequest,
              progress: ProgressReports? = nil) async -> Result<ImageResponse, ImageLoadingError> {
        await Self.load(pipeline, request, progress: progress)
    }

    /// The pixels of the corpus file decoded locally, what every load of it must equal.
    func localPixels(_ file: String) throws -> PixelBuffer {
        try ImageDecoder.decode(TestCorpus.bytes(file)).pixels
    }

    /// nginx's entries for `uri` once it has logged one with `finalStatus`: the last request
    /// of a load, after which no other for the load comes (nginx logs requests in the order it
    /// finishes them, so every earlier one is there too).
    func logged(_ uri: String, finalStatus: Int) async throws -> [NginxAccessLogEntry] {
        try await nginx.waitForAccessLog("\(uri) answered \(finalStatus)") { entries in
            entries.contains { $0.requestURI == uri && $0.status == finalStatus }
        }.filter { $0.requestURI == uri }
    }

    /// nginx's entries for `uri` once there are at least `count`.
    func logged(_ uri: String, atLeast count: Int) async throws -> [NginxAccessLogEntry] {
        try await nginx.waitForAccessLog("\(count) requests for \(uri)") { entries in
            entries.filter { $0.requestURI == uri }.count >= count
        }.filter { $0.requestURI == uri }
    }

    /// Download-to-file temporaries left in the pipelines' temporary directory.
    func downloadLeftovers() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []).filter { $0.hasPrefix(FetchRequest.downloadFilePrefix) }
    }

    /// A failed download's file goes when its fetch ends, a finished one's with the last
    /// reference to its bytes, which may be just after the load returns: waits up to 5 s.
    func expectNoDownloadLeftovers(_ combination: NginxCombination, sourceLocation: SourceLocation = #_sourceLocation) async {
        let clean = await waitUntil(timeout: .seconds(5)) { downloadLeftovers().isEmpty }
        #expect(clean, "\(combination): left \(downloadLeftovers())", sourceLocation: sourceLocation)
    }

    /// Waits (up to 10 s of real time) until the pipeline is backing off on `clock`, so a test
    /// can advance the clock past the wait. False when it never does.
    func waitForBackOff(_ clock: ManualClock) async -> Bool {
        await waitUntil { clock.sleeperCount == 1 }
    }
}

/// Progress reports as they arrive (from any thread).
final class ProgressReports: Sendable {
    private let reports = Mutex<[FetchProgress]>([])
    func append(_ report: FetchProgress) { reports.withLock { $0.append(report) } }
    var all: [FetchProgress] { reports.withLock { $0 } }
}

/// A flag set once, read from any thread.
final class Latch: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

extension Result {
    /// The error, or nil for a success.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
