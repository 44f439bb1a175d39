import Foundation
import ImagoTestServer
import XCTest

/// `imago load` against an in-process loopback server: the phases as JSON lines and the exit codes.
final class LoadCommandTests: XCTestCase {
    private func json(_ line: Substring) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func testRepeatShowsNetworkThenMemoryAndA404Fails() async throws {
        let server = try await TestServer.start(.init(root: DecodeCommandTests.root.appendingPathComponent("Corpus")))
        do {
            let ok = try CommandRunner.run(["load", server.url(for: "/png/rgb-8.png").absoluteString, "--repeat", "2",
                                            "--strategy", "file"])
            XCTAssertEqual(ok.status, 0, ok.stderr)
            let lines = ok.stdout.split(separator: "\n")
            let phases = try lines.map(json)
            let successes = phases.filter { $0["phase"] as? String == "success" }
            XCTAssertEqual(successes.map { $0["origin"] as? String }, ["network", "memory"])
            XCTAssertEqual(phases.first?["phase"] as? String, "empty")
            let summary = try XCTUnwrap(phases.last?["summary"] as? [String: Any])
            XCTAssertEqual(summary["fetches"] as? Int, 1)
            XCTAssertEqual(summary["decodes"] as? Int, 1)

            let missing = try CommandRunner.run(["load", server.url(for: "/nope.png").absoluteString])
            XCTAssertEqual(missing.status, 1)
            let failure = try missing.stdout.split(separator: "\n").map(json).first { $0["phase"] as? String == "failure" }
            XCTAssertEqual(failure?["error"] as? String, "httpStatus(404)")
            XCTAssertTrue(missing.stderr.contains("error: httpStatus(404)"), missing.stderr)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }
}
