import Foundation
import ImagoTestServer
import ImagoTestSupport
import XCTest

/// The nginx launcher itself: start-up, the generated configuration, the access log, typed
/// failures, and that stopping leaves no process, port or directory behind.
final class NginxServerTests: XCTestCase {
    private var root: URL!
    /// Every server a test started, stopped in tearDown whatever the test did.
    private var started: [NginxServer] = []

    override func setUp() async throws {
        root = try TemporaryDirectory.make("imago-test-server")
    }

    override func tearDown() async throws {
        for server in started { await server.stop() }
        started = []
        try? FileManager.default.removeItem(at: root)
    }

    /// Starts nginx in this test's own temporary root; skips (saying why) where there is none.
    private func start(_ locations: [NginxLocation] = [], files: [String: [UInt8]] = [:]) async throws -> NginxServer {
        let server = try await NginxServer.startOrSkip(.init(locations: locations, files: files, temporaryRoot: root))
        started.append(server)
        return server
    }

    private func leftovers() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: root.path) }

    func testServesFilesLogsEachRequestAndStopLeavesNothingBehind() async throws {
        let body = patternBytes(100_000)
        let started = ContinuousClock.now
        let nginx = try await start(files: ["files/a.bin": body])
        print("nginx started in \(ContinuousClock.now - started) on port \(nginx.port), IPv6: \(nginx.ipv6BaseURL != nil)")
        XCTAssertTrue(nginx.isRunning)
        XCTAssertEqual(nginx.accessLog, [], "start-up probes are connections without requests: nginx logs none")
        let response = try await RawConnection.request(port: nginx.port, "/files/a.bin?n=1")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, body)
        XCTAssertEqual(response.header("Server")?.hasPrefix("nginx"), true)
        let missing = try await RawConnection.request(port: nginx.port, "/files/none.bin")
        XCTAssertEqual(missing.status, 404)
        let log = try await nginx.waitForAccessLog("two requests") { $0.count == 2 }
        XCTAssertEqual(log.map(\.requestURI), ["/files/a.bin?n=1", "/files/none.bin"])
        XCTAssertEqual(log.map(\.path), ["/files/a.bin", "/files/none.bin"])
        XCTAssertEqual(log.map(\.status), [200, 404])
        XCTAssertEqual(log[0].bodyBytesSent, body.count)
        XCTAssertTrue(log[0].completed)
        XCTAssertEqual(log[0].serverAddress, "127.0.0.1")

        let pid = Int32(try String(contentsOf: nginx.directory.appendingPathComponent("nginx.pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines))
        let pidValue = try XCTUnwrap(pid)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/proc/\(pidValue)"))
        let stopping = ContinuousClock.now
        await nginx.stop()
        // The watchdog's SIGTERM path, not the 5 s SIGKILL fallback.
        XCTAssertLessThan(ContinuousClock.now - stopping, .seconds(2))
        XCTAssertFalse(nginx.isRunning)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/proc/\(pidValue)"), "nginx exited and was reaped")
        XCTAssertEqual(try leftovers(), [], "the temporary directory is gone")
        do {
            _ = try await RawConnection.request(port: nginx.port, "/files/a.bin")
            XCTFail("the port still answers after stop()")
        } catch {}
        await nginx.stop()   // idempotent
    }

    func testListensOnIPv6LoopbackWhenTheMachineHasIt() async throws {
        try IPv6Loopback.requireOrSkip()
        let nginx = try await start(files: ["a.txt": Array("six".utf8)])
        let v6 = try XCTUnwrap(nginx.ipv6URL(for: "/a.txt"), "the machine has IPv6 loopback: nginx listens there too")
        XCTAssertEqual(v6.absoluteString, "http://[::1]:\(nginx.port)/a.txt")
        let response = try await RawConnection.request(port: nginx.port, host: "::1", "/a.txt")
        XCTAssertEqual(response.text, "six")
        let log = try await nginx.waitForAccessLog("the IPv6 request") { $0.count == 1 }
        XCTAssertEqual(log.map(\.serverAddress), ["::1"])
    }

    func testLocationsRenderToNginxBehaviour() async throws {
        let png = patternBytes(3_000)
        let nginx = try await start([
            .prefix("/static/", .alias("files/"), .gzipStatic()),
            .exact("/moved", .redirect(status: 308, to: "/static/a.png")),
            .exact("/busy", .status(503), .header(name: "Retry-After", value: "7")),
            .exact("/quiet-busy", .status(503), .header(name: "Retry-After", value: "7", always: false)),
            .exact("/flagged", .alias("files/a.png"),
                   .whileFileExists("flag", [.status(503), .header(name: "Retry-After", value: "1")])),
        ], files: ["files/a.png": png, "files/a.png.gz": GzipFile.stored(png), "flag": []])
        let plain = try await RawConnection.request(port: nginx.port, "/static/a.png")
        XCTAssertEqual(plain.body, png)
        XCTAssertNil(plain.header("Content-Encoding"))
        let gzipped = try await RawConnection.request(port: nginx.port, "/static/a.png", headers: [("Accept-Encoding", "gzip")])
        XCTAssertEqual(gzipped.header("Content-Encoding"), "gzip")
        XCTAssertEqual(gzipped.body, GzipFile.stored(png), "gzip_static serves the .gz file as it is")
        XCTAssertEqual(gzipped.header("Content-Length"), "\(GzipFile.stored(png).count)")
        let moved = try await RawConnection.request(port: nginx.port, "/moved?x=1")
        XCTAssertEqual(moved.status, 308)
        XCTAssertEqual(moved.header("Location"), "http://127.0.0.1:\(nginx.port)/static/a.png?x=1", "query kept")
        let busy = try await RawConnection.request(port: nginx.port, "/busy")
        XCTAssertEqual(busy.status, 503)
        XCTAssertEqual(busy.header("Retry-After"), "7")
        let quiet = try await RawConnection.request(port: nginx.port, "/quiet-busy")
        XCTAssertNil(quiet.header("Retry-After"), "without `always` nginx adds headers to 2xx/3xx only")
        let flagged = try await RawConnection.request(port: nginx.port, "/flagged")
        XCTAssertEqual(flagged.status, 503)
        XCTAssertEqual(flagged.header("Retry-After"), "1")
        try nginx.removeFile("flag")
        let unflagged = try await RawConnection.request(port: nginx.port, "/flagged")
        XCTAssertEqual(unflagged.status, 200)
        XCTAssertEqual(unflagged.body, png)
        let configuration = try String(contentsOf: nginx.configurationFile, encoding: .utf8)
        XCTAssertTrue(configuration.contains("master_process off;"))
        XCTAssertTrue(configuration.contains("access_log \"\(nginx.directory.path)/access.log\" imago;"))
    }

    func testUnavailableNginxIsTypedAndLeavesNothing() async throws {
        do {
            _ = try await NginxServer.start(.init(executable: "/nonexistent/nginx", temporaryRoot: root))
            XCTFail("started")
        } catch {
            XCTAssertEqual(error, .unavailable(reason: "/nonexistent/nginx is not an executable file"))
        }
        XCTAssertEqual(try leftovers(), [])
    }

    func testRefusedValuesAreTypedBeforeAnythingStarts() async throws {
        try NginxServer.requireInstalledOrSkip()
        for location: NginxLocation in [
            .exact("/a", .header(name: "X-Test", value: "a; add_header Evil 1")),
            .exact("/a", .redirect(status: 200, to: "/b")),
            .exact("/a", .redirect(status: 301, to: "/$host")),
            .exact("no-slash", .status(404)),
            .exact("/a", .whileFileExists("f", [.alias("x")])),
            .exact("/a", .limitRate(bytesPerSecond: 0)),
            .exact("/a", .redirect(status: 302, to: "/b?x=1")),
        ] {
            do {
                _ = try await NginxServer.start(.init(locations: [location], temporaryRoot: root))
                XCTFail("started with \(location)")
            } catch {
                guard case .invalidConfiguration = error else { return XCTFail("\(location): \(error)") }
            }
        }
        XCTAssertEqual(try leftovers(), [])
    }

    func testAConfigurationNginxRejectsFailsWithItsOwnWords() async throws {
        do {
            _ = try await start([.exact("/twice", .status(404)), .exact("/twice", .status(410))])
            XCTFail("started")
        } catch let error as NginxError {
            guard case .exitedDuringStartup(let status, let log) = error else { return XCTFail("\(error)") }
            XCTAssertNotEqual(status, 0)
            XCTAssertTrue(log.contains("duplicate location"), log)
        }
        XCTAssertEqual(try leftovers(), [])
    }

    func testStoredGzipIsAValidGzipStream() async throws {
        XCTAssertEqual(GzipFile.stored([]), [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0])
        // "123456789" is CRC-32's check value: CBF43926, little-endian in the trailer.
        XCTAssertEqual(Array(GzipFile.stored(Array("123456789".utf8)).suffix(8)), [0x26, 0x39, 0xf4, 0xcb, 9, 0, 0, 0])
        let gzip = "/bin/gzip"
        guard FileManager.default.isExecutableFile(atPath: gzip) else { throw XCTSkip("no \(gzip) to cross-check with") }
        let body = patternBytes(150_000)   // three stored blocks
        let file = root.appendingPathComponent("b.gz")
        try Data(GzipFile.stored(body)).write(to: file)
        let run = try await ChildProcessRunner.run(URL(fileURLWithPath: gzip), ["-dc", file.path], timeout: .seconds(60))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual([UInt8](run.output), body)
    }
}
