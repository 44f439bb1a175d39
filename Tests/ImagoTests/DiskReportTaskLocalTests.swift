import Foundation
import ImagoTestServer
import InMemoryLogging
import Logging
import Synchronization
import Testing
@testable import Imago

/// The disk stage stores bodies on threads of its own (`DiskStage.offCooperativePool`); what it
/// reports there (stored, not stored, revalidated) is made on the load's task, so a logger's
/// metadata provider and an event handler that read task-local values see the load's.
@Suite struct DiskReportTaskLocalTests {
    /// What an application keeps per request (a request ID, a trace context).
    @TaskLocal static var requestID: String?

    private let png = TestCorpus.bytes("png/rgba-8.png")

    @Test(arguments: FetchStrategy.allCases)
    func storedAndNotStoredReportsSeeTheLoadsTaskLocals(strategy: FetchStrategy) async throws {
        let server = try await TestServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-report-task-local-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        server.setRoute("/kept.png", Route(body: png, contentType: "image/png",
                                           faults: Faults(headers: ["Cache-Control": "max-age=3600"])))
        server.setRoute("/private.png", Route(body: png, contentType: "image/png",
                                              faults: Faults(headers: ["Cache-Control": "no-store"])))
        var log = InMemoryLogHandler()
        log.metadataProvider = Logger.MetadataProvider { ["request": "\(Self.requestID ?? "none")"] }
        var logger = Logger(label: "imago-test", factory: { _ in log })
        logger.logLevel = .debug
        let events = Mutex<[(kind: PipelineEvent.Kind, request: String?)]>([])
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(diskCache: try DiskCache(directory: directory)),
            network: .init(fetchStrategy: strategy),
            diagnostics: .init(eventHandler: { event in events.withLock { $0.append((event.kind, Self.requestID)) } },
                               logger: logger)))

        for (path, id) in [("/kept.png", "load-kept"), ("/private.png", "load-private")] {
            _ = try await Self.$requestID.withValue(id) {
                try await pipeline.response(for: ImageRequest(source: .url(server.url(for: path))))
            }
        }
        try await server.shutdown()

        let stored = log.entries.filter { $0.message.description == "Stored in the disk cache" }
        let notStored = log.entries.filter { $0.message.description == "Not stored in the disk cache" }
        #expect(stored.count == 1 && notStored.count == 1)
        #expect(stored.map { $0.metadata["request"] } == ["load-kept"], "\(stored)")
        #expect(notStored.map { $0.metadata["request"] } == ["load-private"], "\(notStored)")
        let made = events.withLock { $0 }
        #expect(made.filter { $0.kind == .notStored }.map(\.request) == ["load-private"])
        let stores = made.filter { $0.kind == .cacheStore }   // the memory cache's and the disk cache's
        #expect(stores.count >= 2 && stores.allSatisfy { $0.request != nil }, "\(stores)")
        #expect(pipeline.counters.snapshot.diskStores == 1 && pipeline.counters.snapshot.diskNotStored == 1,
                "counted before the loads returned")
    }

    @Test func reportsKeptForTheLoadsTaskAreMadeInOrderOnce() {
        let reports = DeferredReports()
        let made = Mutex<[Int]>([])
        for number in 1...3 { reports.append { made.withLock { $0.append(number) } } }
        #expect(made.withLock { $0 }.isEmpty, "nothing is made before the replay")
        reports.replay()
        reports.replay()
        #expect(made.withLock { $0 } == [1, 2, 3])
    }
}
