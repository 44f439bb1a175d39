import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing

/// `imago load --log-level`: the pipeline's swift-log records on standard error, standard output
/// still JSON lines only, and no log line without the option.
@Suite struct LoadLogLevelTests {
    private static let png = DecodeCommandTests.root.appendingPathComponent("Corpus/png/rgb-8.png")

    /// Runs `imago load` on a URL whose first request is answered 503 (so the load retries once).
    private func load(_ options: [String]) async throws -> FinishedProcess {
        let server = try await TestServer.start()
        server.setRoute("/flaky.png", Route(body: [UInt8](try Data(contentsOf: Self.png)), contentType: "image/png")
            .failFirst(1, with: Faults(status: 503)))
        let run: Result<FinishedProcess, any Error>
        do { run = .success(try await CommandRunner.run(["load", server.url(for: "/flaky.png").absoluteString] + options)) }
        catch { run = .failure(error) }
        try await server.shutdown()
        return try run.get()
    }

    /// Every line of `stdout` is a JSON object.
    private func allJSON(_ stdout: String) -> Bool {
        let lines = stdout.split(separator: "\n")
        return !lines.isEmpty && lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] }
    }

    @Test func debugPrintsTheRetryAndTheFetchesOnStandardError() async throws {
        let run = try await load(["--log-level", "debug"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(allJSON(run.stdout), "standard output stays JSON lines: \(run.stdout)")
        let lines = run.stderr.split(separator: "\n")
        let retry = try #require(lines.first { $0.hasSuffix("Retrying fetch") }, "\(run.stderr)")
        #expect(retry.contains(" debug imago:"))
        #expect(retry.contains("attempt=1") && retry.contains("reason=httpStatus(503)"))
        #expect(lines.filter { $0.hasSuffix("Fetch started") }.count == 2)
        #expect(lines.contains { $0.hasSuffix("Load ended") && $0.contains("outcome=success") })
        #expect(!lines.contains { $0.contains(" trace imago:") }, "trace records are below debug")
    }

    @Test func withoutTheOptionNothingIsLogged() async throws {
        let run = try await load([])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(allJSON(run.stdout))
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test func anUnknownLevelIsAUsageError() async throws {
        let run = try await CommandRunner.run(["load", Self.png.path, "--log-level", "verbose"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--log-level"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}
