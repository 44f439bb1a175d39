import Foundation
import ImagoTestServer
import Synchronization
import XCTest
@testable import Imago

/// The pipeline against the loopback server's remaining faults, for every fetch strategy:
/// latency before the head, a throttled body, no Content-Length, and a lying Content-Type.
final class PipelineFaultTests: XCTestCase {
    private var server: TestServer!
    private let jpeg = TestCorpus.bytes("jpeg/baseline-420-q85-1600x1200.jpg")
    private var reference: PixelBuffer!

    override func setUp() async throws {
        server = try await TestServer.start()
        reference = try ImageDecoder.decode(jpeg).pixels
    }

    override func tearDown() async throws { try await server.shutdown() }

    /// Loads `path` with each strategy; returns the responses and every progress report.
    private func loadWithBothStrategies(_ path: String) async throws -> [(ImageResponse, [FetchProgress])] {
        var results: [(ImageResponse, [FetchProgress])] = []
        for strategy in FetchStrategy.allCases {
            let pipeline = ImagePipeline(configuration: .init(network: .init(fetchStrategy: strategy, retryPolicy: .none)))
            let reports = Mutex<[FetchProgress]>([])
            let response = try await pipeline.response(for: ImageRequest(source: .url(server.url(for: path)))) { progress in
                reports.withLock { $0.append(progress) }
            }
            results.append((response, reports.withLock { $0 }))
        }
        return results
    }

    func testLatencyBeforeTheHeadStillSucceeds() async throws {
        server.setRoute("/slow-head.jpg", Route(body: jpeg, faults: Faults(latencyBeforeHead: .milliseconds(150))))
        for (response, _) in try await loadWithBothStrategies("/slow-head.jpg") {
            XCTAssertEqual(response.origin, .network)
            XCTAssertEqual(response.pixels, reference)
        }
    }

    func testThrottledBodyReportsMonotonicProgressAgainstContentLength() async throws {
        // About 20 chunks a second: the body arrives over about 0.3 s in many progress reports.
        server.setRoute("/drip.jpg", Route(body: jpeg, faults: Faults(bytesPerSecond: jpeg.count * 3)))
        for (response, reports) in try await loadWithBothStrategies("/drip.jpg") {
            XCTAssertEqual(response.pixels, reference)
            XCTAssertGreaterThan(reports.count, 2, "a throttled body reports progress more than once")
            XCTAssertEqual(reports.map(\.received), reports.map(\.received).sorted(), "PROGRESS-1")
            XCTAssertTrue(reports.allSatisfy { $0.expected == jpeg.count })
            XCTAssertEqual(reports.last?.received, jpeg.count)
        }
    }

    func testChunkedBodyReportsAnUnknownTotal() async throws {
        server.setRoute("/chunked.jpg", Route(body: jpeg, faults: Faults(chunked: true)))
        for (response, reports) in try await loadWithBothStrategies("/chunked.jpg") {
            XCTAssertEqual(response.pixels, reference)
            XCTAssertTrue(reports.allSatisfy { $0.expected == nil && $0.fraction == nil }, "never a made-up fraction")
        }
    }

    func testTheBytesDecideTheFormatNotTheContentType() async throws {
        server.setRoute("/mislabelled.jpg", Route(body: jpeg, faults: Faults(contentTypeOverride: "text/html")))
        for (response, _) in try await loadWithBothStrategies("/mislabelled.jpg") {
            XCTAssertEqual(response.pixels, reference, "a JPEG served as text/html is still a JPEG")
        }
        let page = Array("<!doctype html><p>not an image</p>".utf8)
        server.setRoute("/page.png", Route(body: page, contentType: "text/html", faults: Faults(contentTypeOverride: "image/png")))
        for strategy in FetchStrategy.allCases {
            let pipeline = ImagePipeline(configuration: .init(network: .init(fetchStrategy: strategy)))
            do {
                _ = try await pipeline.response(for: ImageRequest(source: .url(server.url(for: "/page.png"))))
                XCTFail("an HTML page labelled image/png decoded")
            } catch {
                XCTAssertEqual(error, .decoding(.unsupportedFormat("unknown")))
            }
            XCTAssertEqual(pipeline.counters.snapshot.decodes, 0, "sniffed before the decoder (ERR-2)")
        }
    }
}
