import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing

/// `imago load --cache-dir` against nginx, each run a new process: nginx's own 404 for a missing
/// file, given `Cache-Control: max-age=60` (`add_header … always`), is remembered by the first
/// run and repeated by the second without a request (negative caching); the same 404 without
/// freshness is asked again every time (ERR-4). nginx's access log is the proof of what was asked.
@Suite struct LoadNegativeCachingTests {
    /// Runs `imago load URL --cache-dir DIR`; its JSON lines and exit status.
    private func load(_ url: URL, _ directory: URL) async throws -> (lines: [[String: Any]], status: Int32, stderr: String) {
        let result = try await CommandRunner.run(["load", url.absoluteString, "--cache-dir", directory.path])
        let lines = try result.stdout.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        return (lines, result.status, result.stderr)
    }

    private func failure(_ lines: [[String: Any]]) -> [String: Any]? {
        lines.first { $0["phase"] as? String == "failure" }
    }

    private func summary(_ lines: [[String: Any]]) -> [String: Any]? {
        lines.compactMap { $0["summary"] as? [String: Any] }.first
    }

    @Test(.nginxInstalled) func aFresh404IsRepeatedByTheNextProcessWithoutARequest() async throws {
        try await TemporaryDirectory.with("imago-cli-negative") { directory in
            let nginx = try await NginxServer.startOrSkip(.init(locations: [
                // Nothing is served under either prefix: nginx answers its own 404.
                .prefix("/gone/", .header(name: "Cache-Control", value: "max-age=60")),
                .prefix("/missing/", .header(name: "X-Imago-Test", value: "no freshness")),
            ]))
            do {
                let cache = directory.appendingPathComponent("cache")
                let gone = nginx.url(for: "/gone/a.png")
                let first = try await load(gone, cache)
                #expect(first.status == 1, "\(first.stderr)")
                #expect(failure(first.lines)?["error"] as? String == "httpStatus(404)")
                #expect(failure(first.lines)?["diskCache"] == nil, "asked the server")
                #expect((summary(first.lines)?["diskCache"] as? [String: Int])?["stored"] == 1)

                let second = try await load(gone, cache)
                #expect(second.status == 1, "\(second.stderr)")
                #expect(failure(second.lines)?["error"] as? String == "httpStatus(404)")
                #expect(failure(second.lines)?["diskCache"] as? String == "rememberedFailure")
                #expect(summary(second.lines)?["fetches"] as? Int == 0)
                #expect((summary(second.lines)?["diskCache"] as? [String: Int])?["rememberedFailures"] == 1)
                #expect(second.stderr.contains("error: \(gone.absoluteString): httpStatus(404)"), "\(second.stderr)")

                let missing = nginx.url(for: "/missing/a.png")
                for _ in 0..<2 {
                    let run = try await load(missing, cache)
                    #expect(failure(run.lines)?["diskCache"] == nil)
                }
                // The second run's 404 came from the disk: three requests in all, one of them /gone/.
                let log = try await nginx.waitForAccessLog("three requests", until: { $0.count >= 3 })
                #expect(log.filter { $0.requestURI == "/gone/a.png" }.map(\.status) == [404], "\(log)")
                #expect(log.filter { $0.requestURI == "/missing/a.png" }.map(\.status) == [404, 404], "\(log)")
            } catch {
                await nginx.stop()
                throw error
            }
            await nginx.stop()
        }
    }
}
