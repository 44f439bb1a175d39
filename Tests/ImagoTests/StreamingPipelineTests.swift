import Foundation
import ImagoCorpus
import ImagoTestServer
import Synchronization
import XCTest
@testable import Imago

/// What only the streaming strategy does (the behaviour all strategies share runs for it too,
/// in PipelineTests and the nginx tests): the disk cache's copy is published only once complete
/// and decoded, a cancel mid-stream ends the transfer and the decode together, identical loads
/// share one transfer, and previews come in order of increasing detail before the result.
final class StreamingPipelineTests: XCTestCase {
    private var server: TestServer!
    private var cacheDirectory: URL!
    private let jpeg = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")

    override func setUp() async throws {
        server = try await TestServer.start()
        cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-streaming-\(UUID())")
    }

    override func tearDown() async throws {
        try await server.shutdown()
        try? FileManager.default.removeItem(at: cacheDirectory)
    }

    private func pipeline(disk: Bool = false, previews: PreviewPolicy? = nil) throws -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(
            dependencies: .init(memoryCache: nil, diskCache: disk ? try DiskCache(directory: cacheDirectory) : nil),
            network: .init(fetchStrategy: .stream, retryPolicy: .none))
        configuration.previews = previews
        return ImagePipeline(configuration: configuration)
    }

    private func request(_ path: String) -> ImageRequest { ImageRequest(source: .url(server.url(for: path))) }

    /// Files in the cache directory that are not the cache's own bookkeeping.
    private func temporaries() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path)) ?? []
        return names.filter { $0.hasPrefix(".tmp") }
    }

    func testTheDiskCacheGetsTheBodyOnlyOnceItIsCompleteAndDecoded() async throws {
        let stall = Gate()
        let jpeg = self.jpeg
        server.setRoute("/held.jpg", Route(body: jpeg, contentType: "image/jpeg", faults: Faults(
            stallAfterBytes: jpeg.count / 2, gate: stall, headers: ["Cache-Control": "max-age=3600"])))
        let pipeline = try pipeline(disk: true)
        let held = request("/held.jpg")
        let load = Task { try await pipeline.response(for: held) }
        try await server.counters.waitUntil { $0.bodyBytesSent(for: "/held.jpg") >= jpeg.count / 2 }
        let key = request("/held.jpg").source.identity
        let disk = try XCTUnwrap(pipeline.configuration.dependencies.diskCache)
        XCTAssertNil(disk.entry(forKey: key), "published before the last byte")
        stall.open()
        let response = try await load.value
        XCTAssertEqual(response.diskCache, .stored)
        XCTAssertNotNil(disk.entry(forKey: key))
        XCTAssertEqual(temporaries(), [])
        let again = try await self.pipeline(disk: true).response(for: request("/held.jpg"))
        XCTAssertEqual(again.origin, .disk)
        XCTAssertEqual(again.pixels, response.pixels)
        XCTAssertEqual(server.counters.requests(for: "/held.jpg"), 1)
    }

    func testABodyThatFailsToDecodeLeavesNothingBehind() async throws {
        server.setRoute("/corrupt.jpg", Route(body: TestCorpus.bytes("invalid/jpeg-corrupt-scan.jpg"), contentType: "image/jpeg",
                                              faults: Faults(headers: ["Cache-Control": "max-age=3600"])))
        let pipeline = try pipeline(disk: true)
        do {
            _ = try await pipeline.response(for: request("/corrupt.jpg"))
            XCTFail("a corrupt JPEG decoded")
        } catch {
            guard case .decoding(.corrupt) = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(pipeline.configuration.dependencies.builtInDiskCache?.totalSize, 0, "DISK-3")
        XCTAssertEqual(temporaries(), [])
    }

    func testACancelMidStreamEndsTheTransferAndTheDecodeTogether() async throws {
        let stall = Gate()
        let jpeg = self.jpeg
        server.setRoute("/cancel.jpg", Route(body: jpeg, contentType: "image/jpeg",
                                             faults: Faults(stallAfterBytes: jpeg.count / 2, gate: stall)))
        let pipeline = try pipeline(disk: true)
        let buffersBefore = PixelMemory.liveBufferCount
        let closed = server.counters.snapshot.connectionsClosedByClient
        let cancelled = request("/cancel.jpg")
        let load = Task { try await pipeline.response(for: cancelled) }
        try await server.counters.waitUntil { $0.bodyBytesSent(for: "/cancel.jpg") >= jpeg.count / 2 }
        // The header came long before half the body: the decode has its output by now.
        try await waitUntil { pipeline.counters.snapshot.decodes == 1 }
        load.cancel()
        let result = await load.result
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual($0 as? ImageLoadingError, .cancelled) }
        try await server.counters.waitUntil { $0.connectionsClosedByClient > closed }
        try await waitUntil { PixelMemory.liveBufferCount <= buffersBefore }
        XCTAssertEqual(pipeline.decodeBytesInFlight, 0, "the decode slot was given back")
        try await waitUntil { self.temporaries().isEmpty }
        stall.open()
    }

    func testWaitingForADecodeSlotIsNotTheServersSilence() async throws {
        // One decode slot: the first stream holds it while its body trickles in for about a
        // second (a chunk every 50 ms: never silent for the 300 ms idle timeout); the second
        // reads its header and waits for the slot that whole time. That wait is local work, not
        // a silent server: it must not time out.
        let jpeg = self.jpeg
        server.setRoute("/first.jpg", Route(body: jpeg, contentType: "image/jpeg",
                                            faults: Faults(bytesPerSecond: jpeg.count)))
        server.setRoute("/second.jpg", Route(body: jpeg, contentType: "image/jpeg"))
        let pipeline = ImagePipeline(configuration: .init(
            dependencies: .init(memoryCache: nil),
            network: .init(fetchStrategy: .stream, retryPolicy: .none, idleTimeout: .milliseconds(300)),
            limits: .init(maxConcurrentDecodes: 1)))
        let (first, second) = (request("/first.jpg"), request("/second.jpg"))
        let firstLoad = Task { try await pipeline.response(for: first) }
        try await waitUntil { pipeline.counters.snapshot.decodes == 1 }
        let secondLoad = Task { try await pipeline.response(for: second) }
        try await waitUntil { pipeline.decodeBytesWaiting > 0 }
        _ = try await firstLoad.value
        let response = try await secondLoad.value
        XCTAssertEqual(response.pixels.width, 1600)
        XCTAssertEqual(server.counters.requests(for: "/second.jpg"), 1, "no retry: the second never timed out")
    }

    func testIdenticalLoadsShareOneTransferAndOneDecode() async throws {
        let gate = Gate()
        server.setRoute("/shared.jpg", Route(body: jpeg, contentType: "image/jpeg", faults: Faults(gate: gate)))
        let pipeline = try pipeline()
        let request = request("/shared.jpg")
        // Each task has joined the shared work when imageTask(for:) returns, so none can come
        // late and fetch again after the first finished, however busy the machine is.
        let tasks = (0..<10).map { _ in pipeline.imageTask(for: request) }
        try await gate.waitUntilHeld()
        gate.open()
        var results: [PixelBuffer] = []
        for task in tasks { results.append(try await task.response.pixels) }
        XCTAssertEqual(results.count, 10)
        XCTAssertTrue(results.allSatisfy { $0 == results[0] })
        XCTAssertEqual(server.counters.requests(for: "/shared.jpg"), 1)
        XCTAssertEqual(pipeline.counters.snapshot.decodes, 1)
    }

    func testPreviewsOfProgressiveImagesComeInOrderBeforeTheResult() async throws {
        let image = ProceduralImage(seed: 14, width: 480, height: 360)
        let rgb = image.samples8(channels: 3)
        let progressive = try Encoders.jpeg(width: 480, height: 360, input: .rgb, pixels: rgb, stride: 480 * 3,
                                            quality: 85, progressive: true)
        let interlaced = try Encoders.png(width: 480, height: 360, colorType: .rgb, bitDepth: 8, interlaced: true,
                                          samples: rgb, stride: 480 * 3)
        server.setRoute("/p.jpg", Route(body: progressive, contentType: "image/jpeg"))
        server.setRoute("/p.png", Route(body: interlaced, contentType: "image/png"))
        let pipeline = try pipeline(previews: PreviewPolicy(minimumInterval: .zero, maxPixelSize: 100))
        for path in ["/p.jpg", "/p.png"] {
            let seen = PreviewLog()
            let response = try await pipeline.response(for: request(path), preview: { seen.add($0) })
            let previews = seen.previews
            XCTAssertGreaterThanOrEqual(previews.count, 2, path)
            XCTAssertEqual(previews.map(\.detail), previews.map(\.detail).sorted(), path)
            XCTAssertEqual(Set(previews.map(\.detail)).count, previews.count, path)
            for preview in previews { XCTAssertLessThanOrEqual(max(preview.pixels.width, preview.pixels.height), 100, path) }
            let reference = try ImageDecoder.decode(path.hasSuffix("jpg") ? progressive : interlaced)
            XCTAssertEqual(response.pixels, reference.pixels, "\(path): previews changed the result")
        }
    }

    private func waitUntil(_ condition: @escaping () -> Bool, file: StaticString = #filePath, line: UInt = #line) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("timed out", file: file, line: line) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// Previews as a pipeline delivers them, from any thread.
private final class PreviewLog: Sendable {
    private let log = Mutex<[ImagePreview]>([])
    var previews: [ImagePreview] { log.withLock { $0 } }
    func add(_ preview: ImagePreview) { log.withLock { $0.append(preview) } }
}
