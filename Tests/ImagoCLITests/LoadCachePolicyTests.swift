import Foundation
import ImagoTestServer
import XCTest

/// `imago load --cache-dir` with the HTTP cache policy: each success line says what the disk
/// cache did, the summary counts it, and `--cache-policy`, `--ttl` and `--always-revalidate`
/// change the decisions.
final class LoadCachePolicyTests: XCTestCase {
    private var server: TestServer!
    private var cacheDirectory: URL!

    override func setUp() async throws {
        server = try await TestServer.start()
        let png = try Data(contentsOf: DecodeCommandTests.root.appendingPathComponent("Corpus/png/rgb-8.png"))
        for (path, cacheControl) in [("/hour.png", "max-age=3600"), ("/private.png", "no-store"), ("/ask.png", "no-cache")] {
            server.setRoute(path, Route(body: [UInt8](png), contentType: "image/png", faults: Faults(headers: ["Cache-Control": cacheControl])))
        }
        cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cli-cache-\(UUID())")
    }

    override func tearDown() async throws {
        try await server.shutdown()
        try? FileManager.default.removeItem(at: cacheDirectory)
    }

    /// Runs `imago load` over the paths with the cache directory; the success lines' `diskCache`
    /// by source path, and the summary's `diskCache` counts.
    private func load(_ paths: [String], _ options: [String] = []) async throws -> (outcomes: [String: String], counts: [String: Int]) {
        let urls = paths.map { server.url(for: $0).absoluteString }
        let result = try await CommandRunner.run(["load"] + urls + ["--cache-dir", cacheDirectory.path] + options)
        XCTAssertEqual(result.status, 0, result.stderr)
        var outcomes: [String: String] = [:]
        var counts: [String: Int] = [:]
        for line in result.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["phase"] as? String == "success", let source = object["source"] as? String {
                outcomes[URL(string: source)!.path] = object["diskCache"] as? String ?? "missing"
            }
            if let summary = object["summary"] as? [String: Any] {
                counts = try XCTUnwrap(summary["diskCache"] as? [String: Int], "the summary counts disk cache outcomes")
            }
        }
        return (outcomes, counts)
    }

    func testEachLoadSaysWhatTheDiskCacheDid() async throws {
        let first = try await load(["/hour.png", "/private.png", "/ask.png"])
        XCTAssertEqual(first.outcomes, ["/hour.png": "stored", "/private.png": "notStored", "/ask.png": "stored"])
        XCTAssertEqual(first.counts, ["fresh": 0, "revalidated": 0, "stale": 0, "rememberedFailures": 0, "stored": 2, "replaced": 0, "notStored": 1, "resumedDownloads": 0])
        let second = try await load(["/hour.png", "/private.png", "/ask.png"])
        XCTAssertEqual(second.outcomes, ["/hour.png": "fresh", "/private.png": "notStored", "/ask.png": "revalidated"])
        XCTAssertEqual(second.counts, ["fresh": 1, "revalidated": 1, "stale": 0, "rememberedFailures": 0, "stored": 0, "replaced": 0, "notStored": 1, "resumedDownloads": 0])
        XCTAssertEqual(server.counters.requests(for: "/hour.png"), 1)
        XCTAssertEqual(server.counters.requests(for: "/ask.png"), 2)
    }

    func testPolicyOptionsChangeTheDecisions() async throws {
        _ = try await load(["/hour.png", "/ask.png"])
        let aggressive = try await load(["/ask.png"], ["--cache-policy", "aggressive"])
        XCTAssertEqual(aggressive.outcomes, ["/ask.png": "fresh"], "aggressive reuses without asking")
        let ttl = try await load(["/hour.png"], ["--ttl", "0"])
        XCTAssertEqual(ttl.outcomes, ["/hour.png": "revalidated"], "a zero TTL overrides max-age")
        let always = try await load(["/hour.png"], ["--always-revalidate"])
        XCTAssertEqual(always.outcomes, ["/hour.png": "revalidated"])
    }

    func testCacheOptionsWithoutACacheDirectoryAreRefused() async throws {
        let result = try await CommandRunner.run(["load", server.url(for: "/hour.png").absoluteString, "--ttl", "5"])
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(result.stderr.contains("--ttl applies to the disk cache: give --cache-dir too"), result.stderr)
        let explicit = try await CommandRunner.run(["load", "x.png", "--cache-policy", "http"])
        XCTAssertEqual(explicit.status, 64, "even the default policy means nothing without a disk cache")
        let huge = try await CommandRunner.run(["load", "x.png", "--cache-dir", cacheDirectory.path, "--ttl", "1e16"])
        XCTAssertEqual(huge.status, 64, huge.stderr)
        XCTAssertTrue(huge.stderr.contains("--ttl must be a number of seconds from 0 to"), huge.stderr)
        let policy = try await CommandRunner.run(["load", "x.png", "--cache-policy", "sometimes"])
        XCTAssertEqual(policy.status, 64)
        XCTAssertTrue(policy.stderr.contains("http") && policy.stderr.contains("aggressive"), policy.stderr)
    }
}
