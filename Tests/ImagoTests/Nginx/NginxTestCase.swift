import Foundation
import ImagoConformance
import ImagoTestServer
import Synchronization
import XCTest
@testable import Imago

/// One transport with one fetch strategy. Every nginx test runs its scenario once per
/// combination, each with its own query string, so nginx's access log tells them apart.
struct NginxCombination: Sendable, CustomStringConvertible {
    let transport: NginxTransportCase
    let strategy: FetchStrategy
    /// `?via=TRANSPORT-STRATEGY`, appended to every URL the combination requests.
    var query: String { "?via=\(transport.name)-\(strategy.rawValue)" }
    var description: String { "\(transport.name)/\(strategy.rawValue)" }
}

/// The nginx integration tests' base: a real nginx per test (started by the test, stopped in
/// `tearDown` whatever happened), pipelines over every transport in `NginxTransports.all` with
/// every strategy, and nginx's access log as the request counter.
///
/// Where nginx is not installed (`make deps` installs it) every test skips, printing why.
class NginxTestCase: XCTestCase {
    private(set) var nginx: NginxServer!
    /// Every pipeline's `temporaryDirectory`: download-to-file temporaries are made here.
    private(set) var downloads: URL!

    /// Retries on, with short waits: a retry that should not happen shows up in the log at once.
    static let quickRetries = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(10), maxDelay: .milliseconds(20))

    override func setUp() async throws {
        downloads = FileManager.default.temporaryDirectory.appendingPathComponent("imago-nginx-downloads-\(UUID())")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        await nginx?.stop()
        nginx = nil
        try? FileManager.default.removeItem(at: downloads)
    }

    /// Starts this test's nginx; skips the test, printing why, where nginx cannot be run.
    func startNginx(_ locations: [NginxLocation], files: [String: [UInt8]] = [:]) async throws -> NginxServer {
        let result: Result<NginxServer, NginxError>
        do {
            result = .success(try await NginxServer.start(.init(locations: locations, files: files)))
        } catch {
            result = .failure(error)
        }
        if case .failure(.unavailable(let reason)) = result {
            print("\(name) skipped: \(reason)")
            throw XCTSkip(reason)
        }
        nginx = try result.get()
        return nginx
    }

    /// Runs `body` for every transport (in list order) with each fetch strategy. With
    /// `needing`, a transport that lacks it is skipped with its reason printed, and the whole
    /// test is skipped when none has it.
    func forEachCombination(needing capability: NginxTransportCase.Limitation? = nil,
                            _ body: (NginxCombination) async throws -> Void) async throws {
        var skipped: [String] = []
        var ran = 0
        for transport in NginxTransports.all {
            if let capability, let reason = transport.limitations[capability] {
                print("\(name): \(transport.name) skipped: \(reason)")
                skipped.append("\(transport.name): \(reason)")
                continue
            }
            for strategy in FetchStrategy.allCases {
                try await body(NginxCombination(transport: transport, strategy: strategy))
                ran += 1
            }
        }
        if ran == 0 { throw XCTSkip(skipped.joined(separator: "; ")) }
    }

    /// A pipeline over the combination's transport and strategy, without a memory cache (every
    /// load is a fetch).
    func pipeline(_ combination: NginxCombination, retryPolicy: RetryPolicy = quickRetries,
                  clock: any Clock<Duration> = ContinuousClock(), idleTimeout: Duration = .seconds(10)) -> ImagePipeline {
        ImagePipeline(configuration: .init(
            dependencies: .init(transport: combination.transport.make(), memoryCache: nil, clock: PipelineClock(sleepingOn: clock)),
            network: .init(fetchStrategy: combination.strategy, retryPolicy: retryPolicy, idleTimeout: idleTimeout, temporaryDirectory: downloads),
            memory: .init(respondsToPressure: false)))
    }

    /// `path` plus the combination's query, on nginx's 127.0.0.1 listener.
    func uri(_ path: String, _ combination: NginxCombination) -> String { path + combination.query }

    func request(_ path: String, _ combination: NginxCombination) -> ImageRequest {
        ImageRequest(source: .url(nginx.url(for: uri(path, combination))))
    }

    /// The load's outcome; progress reports are collected into `progress` when given.
    /// (Static, so a test can run it in a task of its own without sharing the test case.)
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
    func assertNoDownloadLeftovers(_ combination: NginxCombination, file: StaticString = #filePath, line: UInt = #line) async {
        let clean = await waitUntil(timeout: .seconds(5)) { downloadLeftovers().isEmpty }
        XCTAssertTrue(clean, "\(combination): left \(downloadLeftovers())", file: file, line: line)
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
