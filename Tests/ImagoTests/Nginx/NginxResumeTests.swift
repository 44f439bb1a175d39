import Foundation
import ImagoTestServer
import XCTest
@testable import Imago

/// An interrupted large download resumes with a 206 from nginx itself, with a disk cache (the
/// next load continues what the failed one kept), for every transport.
///
/// How it is interrupted: while the docroot holds `interrupt`, nginx proxies the image to a
/// loopback test server that sends half of it under nginx's own ETag and closes. Without the
/// file, nginx serves the static file, answering `Range` / `If-Range` natively.
final class NginxResumeTests: NginxTestCase {
    private var upstream: TestServer?

    override func tearDown() async throws {
        try await super.tearDown()   // nginx first: it holds connections to the upstream
        try await upstream?.shutdown()
    }

    private func diskCachePipeline(_ transport: NginxTransportCase, _ directory: URL, retries: RetryPolicy) throws -> ImagePipeline {
        ImagePipeline(configuration: .init(
            dependencies: .init(transport: transport.make(), memoryCache: nil, diskCache: try DiskCache(directory: directory)),
            network: .init(fetchStrategy: .file, retryPolicy: retries),
            memory: .init(respondsToPressure: false)))
    }

    func testAnInterruptedLargeDownloadResumesWithA206() async throws {
        let file = "jpeg/baseline-420-q85-1600x1200.jpg"
        let image = TestCorpus.bytes(file)
        let upstream = try await TestServer.start()
        self.upstream = upstream
        _ = try await startNginx([.exact("/big.jpg", .whileFileExists("interrupt", [.proxy(to: .url(upstream.baseURL))]))],
                                 files: ["big.jpg": image])
        // nginx's validator, which the interrupted answer carries so that the resume matches.
        let probe = try await AsyncHTTPClientTransport.shared.fetch(FetchRequest(url: nginx.url(for: "/big.jpg?via=probe"))) { _ in }
        let etag = try XCTUnwrap(probe.head.etag)
        XCTAssertEqual(probe.head.headers["accept-ranges"], "bytes")
        let half = image.count / 2
        upstream.setRoute("/big.jpg", Route(body: image, contentType: "image/jpeg",
                                            faults: Faults(closeAfterBytes: half, headers: ["ETag": etag])))
        let reference = try localPixels(file)
        for transport in NginxTransports.all {
            let uri = "/big.jpg?via=\(transport.name)"
            let request = ImageRequest(source: .url(nginx.url(for: uri)))
            let cache = downloads.appendingPathComponent(transport.name)
            try nginx.writeFile("interrupt", [])
            let failed = await load(try diskCachePipeline(transport, cache, retries: RetryPolicy.none), request)
            XCTAssertNotNil(failed.failure, "\(transport.name): the interrupted load fails")
            try nginx.removeFile("interrupt")
            let pipeline = try diskCachePipeline(transport, cache, retries: Self.quickRetries)
            let response = try await pipeline.response(for: request)
            XCTAssertEqual(response.pixels, reference, transport.name)
            let resumed = pipeline.counters.snapshot.resumedBytes
            XCTAssertEqual(pipeline.counters.snapshot.resumedDownloads, 1, transport.name)
            XCTAssertGreaterThan(resumed, 0, transport.name)
            let log = try await logged(uri, finalStatus: 206)
            XCTAssertEqual(log.map(\.status), [200, 206], "\(transport.name): \(log)")
            XCTAssertEqual(log.last?.bodyBytesSent, image.count - resumed, "\(transport.name): only the rest")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasPrefix(".tmp-") }
            XCTAssertEqual(leftovers, [], transport.name)
            print("\(name) \(transport.name): resumed from \(resumed) of \(image.count); nginx logged \(log)")
        }
    }
}
