import Foundation
import ImagoTestServer
import ImagoTestSupport
import XCTest

/// The caching-proxy directive: what it renders, and that the nginx it configures caches what
/// the origin allows and nothing else. The origin here is a second nginx serving static files
/// with a `Cache-Control` per location; the multi-process tier tests are `ProxyTierTests`.
final class NginxProxyCacheTests: XCTestCase {
    private var root: URL!
    private var started: [NginxServer] = []

    override func setUp() async throws {
        root = try TemporaryDirectory.make("imago-test-server")
    }

    override func tearDown() async throws {
        for server in started { await server.stop() }
        started = []
        try? FileManager.default.removeItem(at: root)
    }

    private func start(_ locations: [NginxLocation], files: [String: [UInt8]] = [:]) async throws -> NginxServer {
        let server = try await NginxServer.startOrSkip(.init(locations: locations, files: files, temporaryRoot: root))
        started.append(server)
        return server
    }

    /// An origin with one file under three caching regimes, and a caching proxy in front.
    private func startTier(lock: Bool = true, revalidate: Bool = true) async throws -> (origin: NginxServer, proxy: NginxServer) {
        let origin = try await start([
            .prefix("/fresh/", .alias("files/"), .header(name: "Cache-Control", value: "max-age=60")),
            .prefix("/nostore/", .alias("files/"), .header(name: "Cache-Control", value: "no-store")),
            .prefix("/plain/", .alias("files/")),
        ], files: ["files/a.bin": patternBytes(20_000)])
        let proxy = try await start([
            .prefix("/", .cachingProxy(to: .url(origin.baseURL), lock: lock, revalidate: revalidate)),
            .exact("/status", .stubStatus),
        ])
        return (origin, proxy)
    }

    func testRendersTheCacheZoneLockRevalidationAndStatusHeader() async throws {
        let (origin, proxy) = try await startTier()
        let text = try String(contentsOf: proxy.configurationFile, encoding: .utf8)
        let lines = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let expected = [
            "proxy_cache_path \"\(proxy.directory.path)/temp/proxy_cache\" levels=1:2 keys_zone=imago_cache:1m max_size=64m inactive=10m use_temp_path=off;",
            "proxy_pass \(origin.baseURL.absoluteString);",
            "proxy_buffering on;",
            "proxy_cache imago_cache;",
            "proxy_cache_key $scheme$proxy_host$request_uri;",
            "proxy_cache_lock on;",
            "proxy_cache_lock_timeout 60s;",
            "proxy_cache_revalidate on;",
            "add_header X-Cache-Status $upstream_cache_status always;",
            "stub_status;",
        ]
        for line in expected { XCTAssertTrue(lines.contains(line), "missing \(line) in\n\(text)") }
        XCTAssertFalse(text.contains("proxy_buffering off"), "nginx caches nothing it does not buffer")
        let originText = try String(contentsOf: origin.configurationFile, encoding: .utf8)
        XCTAssertFalse(originText.contains("proxy_cache_path"), "no zone is declared where no location caches")

        let (_, switchedOff) = try await startTier(lock: false, revalidate: false)
        let offText = try String(contentsOf: switchedOff.configurationFile, encoding: .utf8)
        XCTAssertTrue(offText.contains("proxy_cache_lock off;") && offText.contains("proxy_cache_revalidate off;"), offText)
        XCTAssertEqual(try proxy.requestsInProgress(statusPath: "/status"), 0, "an idle proxy works on nothing")
    }

    func testCachesWhatTheOriginAllowsAndNothingElse() async throws {
        let (origin, proxy) = try await startTier()
        var statuses: [String: [String]] = [:]
        for path in ["/fresh/a.bin", "/nostore/a.bin", "/plain/a.bin"] {
            for _ in 0..<2 {
                let response = try await RawConnection.request(port: proxy.port, path)
                XCTAssertEqual(response.status, 200, path)
                XCTAssertEqual(response.body, patternBytes(20_000), path)
                statuses[path, default: []].append(response.header("X-Cache-Status") ?? "none")
            }
        }
        XCTAssertEqual(statuses["/fresh/a.bin"], ["MISS", "HIT"], "max-age=60 is cached")
        XCTAssertEqual(statuses["/nostore/a.bin"], ["MISS", "MISS"], "no-store is not")
        XCTAssertEqual(statuses["/plain/a.bin"], ["MISS", "MISS"], "without Cache-Control or Expires nothing is cached")
        let originLog = try await origin.waitForAccessLog("five origin requests") { $0.count == 5 }
        XCTAssertEqual(originLog.map(\.path), ["/fresh/a.bin", "/nostore/a.bin", "/nostore/a.bin", "/plain/a.bin", "/plain/a.bin"])
        XCTAssertEqual(originLog.map(\.cacheStatus), Array(repeating: nil, count: 5), "the origin location does not cache")
        let proxyLog = try await proxy.waitForAccessLog("six proxy requests") { $0.count == 6 }
        XCTAssertEqual(proxyLog.map(\.cacheStatus), ["MISS", "HIT", "MISS", "MISS", "MISS", "MISS"])

        // The client's own revalidation is answered by the proxy from its fresh entry.
        let fresh = try await RawConnection.request(port: proxy.port, "/fresh/a.bin")
        let etag = try XCTUnwrap(fresh.header("ETag"))
        let conditional = try await RawConnection.request(port: proxy.port, "/fresh/a.bin", headers: [("If-None-Match", etag)])
        XCTAssertEqual(conditional.status, 304)
        XCTAssertEqual(origin.accessLog.count, 5, "a fresh entry answers without asking the origin")
    }

    func testRefusesACachingProxyWhereNginxCannotRunOne() async throws {
        try NginxServer.requireInstalledOrSkip()
        for location: NginxLocation in [
            .exact("/a", .whileFileExists("f", [.cachingProxy(to: .thisServer(path: "/b"))])),
            .exact("/a", .cachingProxy(to: .url(URL(string: "ftp://127.0.0.1/")!))),
            .exact("/a", .cachingProxy(to: .thisServer(path: "/b"), timeoutSeconds: 0)),
            .exact("/a", .whileFileExists("f", [.stubStatus])),
        ] {
            do {
                _ = try await NginxServer.start(.init(locations: [location], temporaryRoot: root))
                XCTFail("started with \(location)")
            } catch {
                guard case .invalidConfiguration = error else { return XCTFail("\(location): \(error)") }
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.path), [])
    }
}
