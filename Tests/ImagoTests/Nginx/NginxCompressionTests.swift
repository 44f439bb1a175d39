import Foundation
import ImagoTestServer
import Testing
@testable import Imago

extension TimedSuites.NginxTests {
    /// nginx's compression: `gzip on` (on the fly, chunked) and `gzip_static` (a pre-made .gz
    /// with its Content-Length), as negotiated with the client and forced on it. Every load must
    /// give the image, in one request: a decoded body measured against the encoded
    /// Content-Length used to fail as a truncation and be retried.
    @Suite struct NginxCompressionTests {
        static let images = ["png/rgba-8.png", "jpeg/baseline-420-q85-1600x1200.jpg", "webp/lossless.webp"]

        /// Each image and its stored-deflate .gz (a little larger than the image, like real gzip
        /// output of compressed data often is) under files/.
        private static var files: [String: [UInt8]] {
            var files: [String: [UInt8]] = [:]
            for image in images {
                files["files/\(image)"] = TestCorpus.bytes(image)
                files["files/\(image).gz"] = GzipFile.stored(TestCorpus.bytes(image))
            }
            return files
        }

        private static let locations: [NginxLocation] = [
            .prefix("/gzip/", .alias("files/"), .gzip()),
            .prefix("/gzip-static/", .alias("files/"), .gzipStatic()),
            .prefix("/gzip-static-always/", .alias("files/"), .gzipStatic(always: true)),
            // A server that compresses on the fly whatever the client accepts: the request
            // reaches a `gzip on` location as if the client had accepted gzip.
            .prefix("/gzip-inner/", .alias("files/"), .gzip()),
            .prefix("/gzip-forced/", .proxy(to: .thisServer(path: "/gzip-inner/")), .proxyHeader(name: "Accept-Encoding", value: "gzip")),
        ]

        /// Loads `prefix + image` for every image; returns each image's one log entry.
        private func loadEach(_ prefix: String, _ combination: NginxCombination, _ fixture: NginxFixture,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: NginxAccessLogEntry] {
            let pipeline = fixture.pipeline(combination)
            var entries: [String: NginxAccessLogEntry] = [:]
            for image in Self.images {
                let result = await fixture.load(pipeline, fixture.request(prefix + image, combination))
                guard case .success(let response) = result else {
                    Issue.record("\(combination) \(prefix)\(image): \(result)", sourceLocation: sourceLocation)
                    continue
                }
                try #expect(response.pixels == fixture.localPixels(image), "\(combination) \(prefix)\(image)", sourceLocation: sourceLocation)
                let log = try await fixture.logged(fixture.uri(prefix + image, combination), finalStatus: 200)
                #expect(log.count == 1, "\(combination) \(prefix)\(image) fetched once: \(log)", sourceLocation: sourceLocation)
                #expect(log.first?.completed == true, sourceLocation: sourceLocation)
                entries[image] = log.first
            }
            #expect(pipeline.counters.snapshot.fetches == Self.images.count, "\(combination): no retries", sourceLocation: sourceLocation)
            await fixture.expectNoDownloadLeftovers(combination, sourceLocation: sourceLocation)
            return entries
        }

        @Test(arguments: NginxCombination.all)
        func negotiatedGzipAndGzipStaticServeTheImageOnce(_ combination: NginxCombination) async throws {
            try await NginxFixture.with(Self.locations, files: Self.files) { fixture in
                for prefix in ["/gzip/", "/gzip-static/"] {
                    let entries = try await loadEach(prefix, combination, fixture)
                    for (image, entry) in entries {
                        let size = TestCorpus.bytes(image).count
                        switch entry.contentEncoding {
                        case nil:
                            #expect(entry.bodyBytesSent == size, "\(combination) \(prefix)\(image): the file as stored")
                        case "gzip"?:
                            if prefix == "/gzip-static/" {
                                #expect(entry.bodyBytesSent == GzipFile.stored(TestCorpus.bytes(image)).count, "the .gz file")
                            }
                        case let other?:
                            Issue.record("\(combination) \(prefix)\(image): unexpected Content-Encoding \(other)")
                        }
                        print("NginxCompressionTests \(combination) \(prefix)\(image): Accept-Encoding \(entry.acceptEncoding ?? "none"), "
                              + "Content-Encoding \(entry.contentEncoding ?? "none"), \(entry.bodyBytesSent) bytes")
                    }
                }
            }
        }

        @Test(arguments: NginxCombination.all)
        func gzipForcedOnTheClientIsDecodedNotTakenForATruncation(_ combination: NginxCombination) async throws {
            try combination.require(.contentDecoding)
            try await NginxFixture.with(Self.locations, files: Self.files) { fixture in
                let always = try await loadEach("/gzip-static-always/", combination, fixture)
                for (image, entry) in always {
                    let encoded = GzipFile.stored(TestCorpus.bytes(image)).count
                    #expect(entry.contentEncoding == "gzip", "\(combination) \(image)")
                    #expect(entry.bodyBytesSent == encoded, "the .gz file, announced with its Content-Length")
                    #expect(encoded > TestCorpus.bytes(image).count, "fewer bytes decoded than the Content-Length says")
                }
                let forced = try await loadEach("/gzip-forced/", combination, fixture)
                for (image, entry) in forced {
                    #expect(entry.contentEncoding == "gzip", "\(combination) \(image): compressed on the fly, chunked")
                    let inner = fixture.nginx.accessLog.filter { $0.requestURI == fixture.uri("/gzip-inner/" + image, combination) }
                    #expect(inner.count == 1, "\(combination) \(image): one request reached the gzip location")
                }
            }
        }

        /// Every transport asks for the stored bytes (`Accept-Encoding: identity`), so nginx's
        /// gzip and gzip_static leave images as they are and the Content-Length counts exactly the
        /// bytes the transport receives.
        @Test(arguments: TestTransports.all)
        func everyTransportAsksForTheStoredBytes(_ transport: TransportCase) async throws {
            try await NginxFixture.with(Self.locations, files: Self.files) { fixture in
                let image = Self.images[0]
                let pipeline = ImagePipeline(configuration: .init(
                    dependencies: .init(transport: transport.make(), memoryCache: nil),
                    network: .init(retryPolicy: .none),
                    memory: .init(respondsToPressure: false)))
                for prefix in ["/gzip/", "/gzip-static/"] {
                    let path = prefix + image + "?identity-\(transport.name)"
                    _ = try await pipeline.response(for: ImageRequest(source: .url(fixture.nginx.url(for: path))))
                    let entry = try await fixture.logged(path, finalStatus: 200)
                    #expect(entry.map(\.acceptEncoding) == ["identity"], "\(transport.name)")
                    #expect(entry.map(\.contentEncoding) == [nil], "\(transport.name)")
                    #expect(entry.map(\.bodyBytesSent) == [TestCorpus.bytes(image).count], "\(transport.name)")
                }
            }
        }
    }
}
