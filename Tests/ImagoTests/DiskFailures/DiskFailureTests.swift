import Foundation
import ImagoConformance
import ImagoTestServer
import Testing
@testable import Imago

/// A disk that fails never costs an image (issue 25, item 6): with the cache's directory out of
/// space, made read-only or removed in the middle of a load, every strategy over both
/// transports still delivers the image the network sent, reports `notStored(writeFailed)`,
/// leaves nothing half written, and stores again once the directory works.
@Suite struct DiskFailureTests {
    static let jpeg = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")
    /// Where the server holds the body until the fault is staged: past the first chunk, so the
    /// download's file (or the stream's copy) is open and written when the directory fails.
    static let heldAt = 100_000

    /// One load through a fault: which fault, which strategy, which transport.
    struct Case: Sendable, CustomTestStringConvertible {
        let fault: DiskFault
        let strategy: FetchStrategy
        let transport: String
        var testDescription: String { "\(fault), \(strategy), \(transport)" }

        /// Every strategy over AsyncHTTPClient, and the download to file over URLSession too
        /// (its own body writer).
        static func all(_ fault: DiskFault) -> [Case] {
            FetchStrategy.allCases.map { Case(fault: fault, strategy: $0, transport: "ahc") }
                + [Case(fault: fault, strategy: .file, transport: "urlsession")]
        }
    }

    @Test(arguments: Case.all(.readOnly) + Case.all(.removed))
    func aDirectoryMadeReadOnlyOrRemovedMidLoadCostsNoImage(_ test: Case) async throws {
        try await loadThroughFault(test)
    }

    @Test(.enabled(if: BrokenCacheDirectory.canMount, Comment(rawValue: BrokenCacheDirectory.mountingNotAllowed)),
          arguments: Case.all(.noSpace))
    func aFullDiskCostsNoImage(_ test: Case) async throws {
        try await loadThroughFault(test)
    }

    /// Loads a JPEG held mid-body by the server, stages the fault there, then checks the image,
    /// the outcome, the leftovers, and a second load once the directory is repaired.
    private func loadThroughFault(_ test: Case) async throws {
        let (fault, strategy, transport) = (test.fault, test.strategy, test.transport)
        let directory = try BrokenCacheDirectory(fault)
        defer { directory.tearDown() }
        let server = try await TestServer.start()
        let gate = Gate()
        server.setRoute("/photo.jpg", Route(body: Self.jpeg, contentType: "image/jpeg", faults: Faults(
            stallAfterBytes: Self.heldAt, gate: gate, headers: ["Cache-Control": "max-age=600"])))
        let (firstBytes, firstByte) = AsyncStream<Void>.makeStream()
        let pipeline = try Self.pipeline(directory, strategy: strategy, transport: transport) { event in
            if event.kind == .firstByte { firstByte.yield() }
        }
        let request = ImageRequest(source: .url(server.url(for: "/photo.jpg")))

        do {
            let load = Task { try await pipeline.response(for: request) }
            var arrivals = firstBytes.makeAsyncIterator()
            _ = await arrivals.next()   // the body is arriving: its file is open and written
            try await gate.waitUntilHeld()
            try directory.breakDirectory()
            gate.open()
            let response = try await load.value
            #expect(response.origin == .network)
            #expect(response.pixels.width == 1600 && response.pixels.height == 1200)
            // A removed directory is made again by the cache at its next write: a body still
            // whole in memory then (`.data`, a download that fell back to memory) is stored; one
            // written to a file in the removed directory (`.stream`'s copy) is not.
            let storedAnyway = fault == .removed && response.diskCache == .stored
            #expect(response.diskCache == .notStored(.writeFailed) || storedAnyway)
            #expect(fault != .removed || strategy == .stream || storedAnyway,
                    "a body whole in memory is stored in the directory made again")
            #expect(server.counters.snapshot.requestLog(for: "/photo.jpg").count == 1, "the network's bytes served: no second request")
            let tidy = await waitUntil(timeout: .seconds(5)) {
                directory.halfWrittenFiles().isEmpty && directory.downloadFiles().isEmpty
            }
            #expect(tidy, "left: \(directory.halfWrittenFiles()) in the cache, \(directory.downloadFiles()) in downloads")

            try directory.repair()
            let again = try await pipeline.response(for: request)
            #expect(again.diskCache == (storedAnyway ? .fresh : .stored), "stores again once the directory works")
            #expect(again.pixels.width == 1600)
            // An empty leftover of the read-only moment may stay (its name could not be removed
            // then); the cache's sweep removes it once older than the grace period.
            let stored = await waitUntil(timeout: .seconds(5)) {
                directory.cacheFiles().filter { !$0.hasPrefix(".") }.count == 2 && directory.halfWrittenFiles().isEmpty
            }
            #expect(stored, "one entry (payload and sidecar), nothing else with bytes: \(directory.cacheFiles())")
        } catch {
            gate.open()
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    /// A pipeline with no memory cache (each load reaches the disk stage) and a disk cache in
    /// `directory.cache`; its own temporaries go to `directory.downloads`.
    static func pipeline(_ directory: BrokenCacheDirectory, strategy: FetchStrategy, transport: String,
                         events: @escaping @Sendable (PipelineEvent) -> Void) throws -> ImagePipeline {
        let cache = try DiskCache(directory: directory.cache, configuration: .init(sizeLimit: 2 << 20))
        var configuration = ImagePipeline.Configuration(
            dependencies: .init(transport: transport == "ahc" ? AsyncHTTPClientTransport.shared : URLSessionTransport(),
                                memoryCache: nil, diskCache: cache),
            network: .init(fetchStrategy: strategy, retryPolicy: .none))
        configuration.network.temporaryDirectory = directory.downloads
        configuration.diagnostics.eventHandler = events
        return ImagePipeline(configuration: configuration)
    }
}

/// A cache directory that cannot be used at all is a typed error with a readable reason when
/// the cache is opened, never an NSError.
@Suite struct UnusableCacheDirectoryTests {
    @Test func aFileInTheWayIsNotADirectory() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imago-in-the-way-\(UUID())")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for directory in [file, file.appendingPathComponent("below")] {
            let error = try #require(throws: DiskCacheError.self) { try DiskCache(directory: directory) }
            #expect(error.reason == "not a directory", "\(error)")
        }
    }

    @Test(.enabled(if: geteuid() != 0, "root may write a directory whatever its mode: the CLI test runs this as nobody"))
    func aReadOnlyDirectoryIsPermissionDenied() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("imago-read-only-\(UUID())")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { chmod(parent.path, 0o755); try? FileManager.default.removeItem(at: parent) }
        #expect(chmod(parent.path, 0o555) == 0)
        for directory in [parent, parent.appendingPathComponent("below")] {
            let error = try #require(throws: DiskCacheError.self) { try DiskCache(directory: directory) }
            #expect(error.reason == "permission denied", "\(error)")
        }
    }

    @Test(.enabled(if: BrokenCacheDirectory.canMount, Comment(rawValue: BrokenCacheDirectory.mountingNotAllowed)))
    func aReadOnlyFileSystemIsReported() throws {
        let directory = try BrokenCacheDirectory(.readOnly)
        defer { directory.tearDown() }
        try directory.breakDirectory()
        let error = try #require(throws: DiskCacheError.self) { try DiskCache(directory: directory.cache) }
        #expect(error.reason == "read-only file system", "\(error)")
    }
}
