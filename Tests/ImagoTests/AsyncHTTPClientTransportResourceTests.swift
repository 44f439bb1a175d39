import Foundation
import ImagoTestServer
import ImagoTestSupport
import NIOSSL
import Synchronization
import XCTest
@testable import Imago

/// AsyncHTTPClientTransport's TLS, its memory window for large downloads, and its lifetime.
final class AsyncHTTPClientTransportResourceTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imago-ahc-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    private func request(_ url: URL, _ strategy: FetchStrategy = .data, maxSize: Int = 256 << 20) -> FetchRequest {
        FetchRequest(url: url, strategy: strategy, idleTimeout: .seconds(10), maxResponseSize: maxSize, temporaryDirectory: scratch)
    }

    private func downloads() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(FetchRequest.downloadFilePrefix) }
    }

    // MARK: TLS

    /// A self-signed certificate is refused through the system trust store with `.tls` (final,
    /// not retried); trusted explicitly, the same server serves the body.
    func testHTTPSVerifiesAgainstTheTrustStoreAndReportsTLSFailures() async throws {
        let certificate = try SelfSignedCertificate.make(in: scratch)
        let body = [UInt8]((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
        let server = try await TLSTestServer.start(certificate: certificate, body: body)
        let url = server.baseURL.appendingPathComponent("a.bin")

        let system = AsyncHTTPClientTransport()
        do {
            _ = try await system.fetch(request(url)) { _ in }
            XCTFail("a self-signed certificate was trusted")
        } catch {
            guard case .tls(let reason) = error else { return XCTFail("expected .tls, got \(error)") }
            XCTAssertTrue(reason.contains("CERTIFICATE_VERIFY_FAILED"), reason)
            XCTAssertFalse(error.isTransient)
        }
        try await system.shutdown()

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate.certificatePath))
        let trusting = AsyncHTTPClientTransport(configuration: .init(tlsConfiguration: tls))
        for strategy in FetchStrategy.storing {
            let result = try await trusting.fetch(request(url, strategy)) { _ in }
            switch result.body {
            case .data(let data): XCTAssertEqual([UInt8](data), body)
            case .file(let file):
                XCTAssertEqual([UInt8](try Data(contentsOf: file)), body)
                try FileManager.default.removeItem(at: file)
            case .notModified: XCTFail("304")
            case .streamed: XCTFail("streamed without a consumer")
            }
        }
        try await trusting.shutdown()
        try await server.shutdown()
    }

    /// https to a server that speaks plain HTTP: the handshake fails, reported as `.tls`.
    func testAHandshakeWithAPlainHTTPServerIsATLSFailure() async throws {
        let server = try await TestServer.start()
        let transport = AsyncHTTPClientTransport()
        let url = URL(string: "https://127.0.0.1:\(server.port)/a.bin")!
        do {
            _ = try await transport.fetch(request(url)) { _ in }
            XCTFail("https to a plain HTTP server succeeded")
        } catch {
            guard case .tls = error else { return XCTFail("expected .tls, got \(error)") }
        }
        try await transport.shutdown()
        try await server.shutdown()
    }

    // MARK: Memory

    /// A 96 MiB body downloaded to file: the transport holds one chunk at a time (its own
    /// gauge), and the process's resident memory does not grow with the body (the socket is
    /// only read as chunks are written).
    func testADownloadToFileKeepsASmallWindowInMemory() async throws {
        let size = 96 << 20
        let server = try await TestServer.start()
        server.setRoute("/huge.bin", Route(body: [UInt8](repeating: 0x5A, count: size)))
        let transport = AsyncHTTPClientTransport()
        let baseline = ProcessResources.now().residentBytes
        let peakResident = PeakResident(baseline: baseline)
        let result = try await transport.fetch(request(server.url(for: "/huge.bin"), .file)) { progress in
            peakResident.sample(every: 8 << 20, received: progress.received)
        }
        guard case .file(let file) = result.body else { return XCTFail("expected a file") }
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        XCTAssertEqual((attributes[.size] as? NSNumber)?.intValue, size)
        try FileManager.default.removeItem(at: file)
        XCTAssertLessThanOrEqual(transport.inFlight.peak, 1 << 20, "bytes held between receipt and the file")
        XCTAssertEqual(transport.inFlight.current, 0)
        XCTAssertLessThan(peakResident.growth, 32 << 20, "resident memory grew with the body")
        XCTAssertGreaterThan(peakResident.samples, 4)
        try await transport.shutdown()
        try await server.shutdown()
    }

    // MARK: Lifetime

    /// shutdown() closes the pooled connections before it returns; a fetch afterwards fails at
    /// once; a second shutdown, and one on `shared`, do nothing.
    func testShutdownClosesConnectionsAndRefusesLaterFetches() async throws {
        let server = try await TestServer.start()
        server.setRoute("/a.bin", Route(body: [1, 2, 3]))
        let transport = AsyncHTTPClientTransport()
        _ = try await transport.fetch(request(server.url(for: "/a.bin"))) { _ in }
        XCTAssertEqual(server.counters.connectionsOpened, 1)
        XCTAssertEqual(server.counters.connectionsClosed, 0, "the connection is kept for reuse")
        try await transport.shutdown()
        try await server.counters.waitUntil { $0.connectionsClosed == 1 }
        do {
            _ = try await transport.fetch(request(server.url(for: "/a.bin"))) { _ in }
            XCTFail("a shut-down transport fetched")
        } catch {
            guard case .transport = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(server.counters.totalRequests, 1)
        try await transport.shutdown()
        try await AsyncHTTPClientTransport.shared.shutdown()
        try await server.shutdown()
    }

    /// A transport released without shutdown() is freed, and its connections closed.
    func testATransportReleasedWithoutShutdownClosesItsConnections() async throws {
        let server = try await TestServer.start()
        server.setRoute("/a.bin", Route(body: [1, 2, 3]))
        weak var released: AsyncHTTPClientTransport?
        do {
            let transport = AsyncHTTPClientTransport()
            released = transport
            _ = try await transport.fetch(request(server.url(for: "/a.bin"))) { _ in }
        }
        XCTAssertNil(released)
        try await server.counters.waitUntil { $0.connectionsClosed == $0.connectionsOpened }
        try await server.shutdown()
    }

    /// The pipeline's default on Linux.
    func testTheLinuxDefaultTransportIsTheSharedAsyncHTTPClientTransport() {
        #if os(Linux)
        XCTAssertTrue(ImagePipeline.Configuration().dependencies.transport as? AsyncHTTPClientTransport === AsyncHTTPClientTransport.shared)
        #else
        XCTAssertTrue(ImagePipeline.Configuration().dependencies.transport is URLSessionTransport)
        #endif
    }
}

/// The largest resident size seen above a baseline, sampled as a download progresses.
private final class PeakResident: Sendable {
    private let baseline: Int
    private let state = Mutex((peak: 0, samples: 0, next: 0))

    init(baseline: Int) { self.baseline = baseline }

    var growth: Int { state.withLock { $0.peak } - baseline }
    var samples: Int { state.withLock { $0.samples } }

    /// Reads /proc at most once per `interval` received bytes.
    func sample(every interval: Int, received: Int) {
        let due = state.withLock { state -> Bool in
            guard received >= state.next else { return false }
            state.next = received + interval
            return true
        }
        guard due else { return }
        let resident = ProcessResources.now().residentBytes
        state.withLock { $0.peak = max($0.peak, resident); $0.samples += 1 }
    }
}
