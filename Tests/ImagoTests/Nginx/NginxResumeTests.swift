import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// An interrupted large download resumes with a 206 from nginx itself, with a disk cache
    /// (the next load continues what the failed one kept), for every transport.
    ///
    /// How it is interrupted: while the docroot holds `interrupt`, nginx proxies the image to a
    /// loopback test server that sends half of it under nginx's own ETag and closes. Without the
    /// file, nginx serves the static file, answering `Range` / `If-Range` natively.
    @Suite struct NginxResumeTests {
        private func diskCachePipeline(_ transport: TransportCase, _ directory: URL, retries: RetryPolicy) throws -> ImagePipeline {
            ImagePipeline(configuration: .init(
                dependencies: .init(transport: transport.make(), memoryCache: nil, diskCache: try DiskCache(directory: directory)),
                network: .init(fetchStrategy: .file, retryPolicy: retries),
                memory: .init(respondsToPressure: false)))
        }

        @Test(arguments: TestTransports.all)
        func anInterruptedLargeDownloadResumesWithA206(_ transport: TransportCase) async throws {
            let file = "jpeg/baseline-420-q85-1600x1200.jpg"
            let image = TestCorpus.bytes(file)
            // The upstream outlives nginx (which holds connections to it): nginx stops first.
            try await TestServer.with { upstream in
                try await NginxFixture.with([.exact("/big.jpg", .whileFileExists("interrupt", [.proxy(to: .url(upstream.baseURL))]))],
                                            files: ["big.jpg": image]) { fixture in
                    let nginx = fixture.nginx
                    // nginx's validator, which the interrupted answer carries so that the resume matches.
                    let probe = try await AsyncHTTPClientTransport.shared.fetch(FetchRequest(url: nginx.url(for: "/big.jpg?via=probe"))) { _ in }
                    let etag = try #require(probe.head.etag)
                    #expect(probe.head.headers["accept-ranges"] == "bytes")
                    let half = image.count / 2
                    upstream.setRoute("/big.jpg", Route(body: image, contentType: "image/jpeg",
                                                        faults: Faults(closeAfterBytes: half, headers: ["ETag": etag])))
                    let reference = try fixture.localPixels(file)
                    let uri = "/big.jpg?via=\(transport.name)"
                    let request = ImageRequest(source: .url(nginx.url(for: uri)))
                    let cache = fixture.downloads.appendingPathComponent(transport.name)
                    try nginx.writeFile("interrupt", [])
                    let failed = await fixture.load(try diskCachePipeline(transport, cache, retries: RetryPolicy.none), request)
                    #expect(failed.failure != nil, "\(transport.name): the interrupted load fails")
                    try nginx.removeFile("interrupt")
                    let pipeline = try diskCachePipeline(transport, cache, retries: NginxFixture.quickRetries)
                    let response = try await pipeline.response(for: request)
                    #expect(response.pixels == reference, "\(transport.name)")
                    let resumed = pipeline.counters.snapshot.resumedBytes
                    #expect(pipeline.counters.snapshot.resumedDownloads == 1, "\(transport.name)")
                    #expect(resumed > 0, "\(transport.name)")
                    let log = try await fixture.logged(uri, finalStatus: 206)
                    #expect(log.map(\.status) == [200, 206], "\(transport.name): \(log)")
                    #expect(log.last?.bodyBytesSent == image.count - resumed, "\(transport.name): only the rest")
                    let leftovers = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasPrefix(".tmp-") }
                    #expect(leftovers == [], "\(transport.name)")
                    print("NginxResumeTests \(transport.name): resumed from \(resumed) of \(image.count); nginx logged \(log)")
                }
            }
        }
    }
}
