import Foundation
import ImagoTestServer
import XCTest
@testable import Imago

/// nginx's compression: `gzip on` (on the fly, chunked) and `gzip_static` (a pre-made .gz with
/// its Content-Length), as negotiated with the client and forced on it. Every load must give
/// the image, in one request: a decoded body measured against the encoded Content-Length used
/// to fail as a truncation and be retried.
final class NginxCompressionTests: NginxTestCase {
    static let images = ["png/rgba-8.png", "jpeg/baseline-420-q85-1600x1200.jpg", "webp/lossless.webp"]

    /// Each image and its stored-deflate .gz (a little larger than the image, like real gzip
    /// output of compressed data often is) under files/.
    private var files: [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for image in Self.images {
            files["files/\(image)"] = TestCorpus.bytes(image)
            files["files/\(image).gz"] = GzipFile.stored(TestCorpus.bytes(image))
        }
        return files
    }

    private let locations: [NginxLocation] = [
        .prefix("/gzip/", .alias("files/"), .gzip()),
        .prefix("/gzip-static/", .alias("files/"), .gzipStatic()),
        .prefix("/gzip-static-always/", .alias("files/"), .gzipStatic(always: true)),
        // A server that compresses on the fly whatever the client accepts: the request reaches
        // a `gzip on` location as if the client had accepted gzip.
        .prefix("/gzip-inner/", .alias("files/"), .gzip()),
        .prefix("/gzip-forced/", .proxy(to: .thisServer(path: "/gzip-inner/")), .proxyHeader(name: "Accept-Encoding", value: "gzip")),
    ]

    /// Loads `prefix + image` for every image; returns each image's one log entry.
    private func loadEach(_ prefix: String, _ combination: NginxCombination,
                          file: StaticString = #filePath, line: UInt = #line) async throws -> [String: NginxAccessLogEntry] {
        let pipeline = pipeline(combination)
        var entries: [String: NginxAccessLogEntry] = [:]
        for image in Self.images {
            let result = await load(pipeline, request(prefix + image, combination))
            guard case .success(let response) = result else {
                XCTFail("\(combination) \(prefix)\(image): \(result)", file: file, line: line)
                continue
            }
            XCTAssertEqual(response.pixels, try localPixels(image), "\(combination) \(prefix)\(image)", file: file, line: line)
            let log = try await logged(uri(prefix + image, combination), finalStatus: 200)
            XCTAssertEqual(log.count, 1, "\(combination) \(prefix)\(image) fetched once: \(log)", file: file, line: line)
            XCTAssertEqual(log.first?.completed, true, file: file, line: line)
            entries[image] = log.first
        }
        XCTAssertEqual(pipeline.counters.snapshot.fetches, Self.images.count, "\(combination): no retries", file: file, line: line)
        await assertNoDownloadLeftovers(combination, file: file, line: line)
        return entries
    }

    func testNegotiatedGzipAndGzipStaticServeTheImageOnce() async throws {
        _ = try await startNginx(locations, files: files)
        try await forEachCombination { combination in
            for prefix in ["/gzip/", "/gzip-static/"] {
                let entries = try await loadEach(prefix, combination)
                for (image, entry) in entries {
                    let size = TestCorpus.bytes(image).count
                    switch entry.contentEncoding {
                    case nil:
                        XCTAssertEqual(entry.bodyBytesSent, size, "\(combination) \(prefix)\(image): the file as stored")
                    case "gzip"?:
                        if prefix == "/gzip-static/" {
                            XCTAssertEqual(entry.bodyBytesSent, GzipFile.stored(TestCorpus.bytes(image)).count, "the .gz file")
                        }
                    case let other?:
                        XCTFail("\(combination) \(prefix)\(image): unexpected Content-Encoding \(other)")
                    }
                    print("\(name) \(combination) \(prefix)\(image): Accept-Encoding \(entry.acceptEncoding ?? "none"), "
                          + "Content-Encoding \(entry.contentEncoding ?? "none"), \(entry.bodyBytesSent) bytes")
                }
            }
        }
    }

    func testGzipForcedOnTheClientIsDecodedNotTakenForATruncation() async throws {
        _ = try await startNginx(locations, files: files)
        try await forEachCombination(needing: .contentDecoding) { combination in
            let always = try await loadEach("/gzip-static-always/", combination)
            for (image, entry) in always {
                let encoded = GzipFile.stored(TestCorpus.bytes(image)).count
                XCTAssertEqual(entry.contentEncoding, "gzip", "\(combination) \(image)")
                XCTAssertEqual(entry.bodyBytesSent, encoded, "the .gz file, announced with its Content-Length")
                XCTAssertGreaterThan(encoded, TestCorpus.bytes(image).count, "fewer bytes decoded than the Content-Length says")
            }
            let forced = try await loadEach("/gzip-forced/", combination)
            for (image, entry) in forced {
                XCTAssertEqual(entry.contentEncoding, "gzip", "\(combination) \(image): compressed on the fly, chunked")
                let inner = nginx.accessLog.filter { $0.requestURI == uri("/gzip-inner/" + image, combination) }
                XCTAssertEqual(inner.count, 1, "\(combination) \(image): one request reached the gzip location")
            }
        }
    }

    /// Both transports ask for the stored bytes (`Accept-Encoding: identity`), so nginx's gzip
    /// and gzip_static leave images as they are and the Content-Length counts exactly the bytes
    /// the transport receives.
    func testEveryTransportAsksForTheStoredBytes() async throws {
        let nginx = try await startNginx(locations, files: files)
        let image = Self.images[0]
        for transport in NginxTransports.all {
            let pipeline = ImagePipeline(configuration: .init(
                dependencies: .init(transport: transport.make(), memoryCache: nil),
                network: .init(retryPolicy: .none),
                memory: .init(respondsToPressure: false)))
            for prefix in ["/gzip/", "/gzip-static/"] {
                let path = prefix + image + "?identity-\(transport.name)"
                _ = try await pipeline.response(for: ImageRequest(source: .url(nginx.url(for: path))))
                let entry = try await logged(path, finalStatus: 200)
                XCTAssertEqual(entry.map(\.acceptEncoding), ["identity"], transport.name)
                XCTAssertEqual(entry.map(\.contentEncoding), [nil], transport.name)
                XCTAssertEqual(entry.map(\.bodyBytesSent), [TestCorpus.bytes(image).count], transport.name)
            }
        }
    }
}
