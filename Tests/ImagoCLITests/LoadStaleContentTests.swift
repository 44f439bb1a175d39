import Foundation
import ImagoTestServer
import Testing

/// `imago load --cache-dir` with RFC 5861's directives, each run a new process: a stale entry
/// within `stale-while-revalidate` is shown at once and revalidated before the process exits (the
/// next run sees what that brought); one within `stale-if-error` stands in for a failing origin.
/// `max-age=0` makes an entry stale at once, so no run waits for time to pass.
@Suite(.serialized)
struct LoadStaleContentTests {
    static let png = try! [UInt8](Data(contentsOf: DecodeCommandTests.root.appendingPathComponent("Corpus/png/rgb-8.png")))
    /// 1×1 pixels, where `png` is 37×23: which body a load decoded shows in its width.
    static let tinyPNG = try! [UInt8](Data(contentsOf: DecodeCommandTests.root.appendingPathComponent("Corpus/png/gray-8-1x1-interlaced.png")))

    /// Runs `imago load URL --cache-dir DIR OPTIONS`; its JSON lines and exit status.
    private func load(_ url: URL, _ directory: URL, _ options: [String] = []) async throws -> (lines: [[String: Any]], status: Int32, stderr: String) {
        let result = try await CommandRunner.run(["load", url.absoluteString, "--cache-dir", directory.path] + options)
        let lines = try result.stdout.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        return (lines, result.status, result.stderr)
    }

    private func success(_ lines: [[String: Any]]) -> [String: Any]? {
        lines.first { $0["phase"] as? String == "success" }
    }

    private func summaryDisk(_ lines: [[String: Any]]) -> [String: Int]? {
        lines.compactMap { ($0["summary"] as? [String: Any])?["diskCache"] as? [String: Int] }.first
    }

    @Test("stale-while-revalidate: shown stale, replaced before exit, the next run sees the new image")
    func staleWhileRevalidate() async throws {
        let server = try await TestServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cli-swr-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = server.url(for: "/swr.png")
        server.setRoute("/swr.png", Route(body: Self.png, contentType: "image/png",
                                          faults: Faults(headers: ["Cache-Control": "max-age=0, stale-while-revalidate=600"])))
        let first = try await load(url, directory)
        #expect(success(first.lines)?["diskCache"] as? String == "stored")

        server.setRoute("/swr.png", Route(body: Self.tinyPNG, contentType: "image/png",
                                          faults: Faults(headers: ["Cache-Control": "max-age=3600"])))
        let second = try await load(url, directory)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(success(second.lines)?["diskCache"] as? String == "staleRevalidating")
        #expect(success(second.lines)?["width"] as? Int == 37, "the stale image, at once")
        let revalidation = second.lines.first { $0["backgroundRevalidation"] != nil }
        #expect(revalidation?["backgroundRevalidation"] as? String == "replaced")
        #expect(revalidation?["source"] as? String == url.absoluteString)
        #expect(summaryDisk(second.lines)?["stale"] == 1)
        #expect(server.counters.conditionalRequests(for: "/swr.png") == 1)

        let third = try await load(url, directory)
        #expect(success(third.lines)?["diskCache"] as? String == "fresh")
        #expect(success(third.lines)?["width"] as? Int == 1, "what the revalidation brought")
        #expect(server.counters.requests(for: "/swr.png") == 2)
        try await server.shutdown()
    }

    @Test("stale-if-error: a 503 is answered by the stale entry; --retries 0 asks once")
    func staleIfError() async throws {
        let server = try await TestServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cli-sie-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = server.url(for: "/sie.png")
        let headers = ["Cache-Control": "max-age=0, stale-if-error=600"]
        server.setRoute("/sie.png", Route(body: Self.png, contentType: "image/png", faults: Faults(headers: headers)))
        _ = try await load(url, directory)
        server.setRoute("/sie.png", Route(body: Self.png, contentType: "image/png", faults: Faults(status: 503, headers: headers)))
        let second = try await load(url, directory, ["--retries", "0"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(success(second.lines)?["diskCache"] as? String == "staleIfError")
        #expect(summaryDisk(second.lines)?["stale"] == 1)
        #expect(server.counters.requests(for: "/sie.png") == 2)
        try await server.shutdown()
    }

    @Test("--retries N bounds the retries of a failing load; a negative N is refused")
    func retries() async throws {
        let server = try await TestServer.start()
        server.setRoute("/down.png", Route(body: Self.png, contentType: "image/png", faults: Faults(status: 503)))
        let url = server.url(for: "/down.png").absoluteString
        let failed = try await CommandRunner.run(["load", url, "--retries", "1"])
        #expect(failed.status == 1)
        #expect(server.counters.requests(for: "/down.png") == 2, "one request and one retry")
        let refused = try await CommandRunner.run(["load", url, "--retries=-1"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--retries must be 0 or more"), "\(refused.stderr)")
        let help = try await CommandRunner.run(["load", "--help"])
        let helpText = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")   // unwrapped
        #expect(helpText.contains("default: the pipeline's, 2)"), "the default is stated")
        try await server.shutdown()
    }
}
