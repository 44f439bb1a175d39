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
            let ok = try await CommandRunner.run(["load", server.url(for: "/png/rgb-8.png").absoluteString, "--repeat", "2",
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

            let missing = try await CommandRunner.run(["load", server.url(for: "/nope.png").absoluteString])
            XCTAssertEqual(missing.status, 1)
            let failure = try missing.stdout.split(separator: "\n").map(json).first { $0["phase"] as? String == "failure" }
            XCTAssertEqual(failure?["error"] as? String, "httpStatus(404)")
            XCTAssertTrue(missing.stderr.contains(": httpStatus(404)"), missing.stderr)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    func testSeveralSourcesAtOnceEachLineTaggedWithDetailAndSchemesJudged() async throws {
        let server = try await TestServer.start(.init(root: DecodeCommandTests.root.appendingPathComponent("Corpus")))
        let png = DecodeCommandTests.root.appendingPathComponent("Corpus/png/rgb-8.png")
        let corrupt = FileManager.default.temporaryDirectory.appendingPathComponent("imago-corrupt-\(UUID()).png")
        try Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + [UInt8](repeating: 1, count: 64)).write(to: corrupt)
        defer { try? FileManager.default.removeItem(at: corrupt) }
        let upper = server.url(for: "/png/rgb-8.png").absoluteString.replacingOccurrences(of: "http://", with: "HTTP://")
        let sources = [upper, "FILE://" + png.path, "ftp://127.0.0.1/a.png", "/no/such/file.png", corrupt.path]
        let run = try await CommandRunner.run(["load"] + sources + ["--concurrency", "3", "--timeout", "0.5"])
        try await server.shutdown()
        XCTAssertEqual(run.status, 1, run.stderr)
        let lines = try run.stdout.split(separator: "\n").map(json)
        var terminal: [String: [String: Any]] = [:]
        for line in lines.dropLast() {
            let source = try XCTUnwrap(line["source"] as? String, "every phase line names its source")
            if ["success", "failure"].contains(line["phase"] as? String) { terminal[source] = line }
        }
        XCTAssertEqual(Set(terminal.keys), Set(sources))
        XCTAssertEqual(terminal[upper]?["origin"] as? String, "network", "schemes are case-insensitive")
        XCTAssertEqual(terminal["FILE://" + png.path]?["origin"] as? String, "local")
        XCTAssertEqual(terminal["ftp://127.0.0.1/a.png"]?["error"] as? String, "unsupportedScheme(ftp)")
        XCTAssertEqual(terminal["ftp://127.0.0.1/a.png"]?["detail"] as? String,
                       "unsupportedScheme(ftp): only http and https are fetched; file URLs load as local files")
        XCTAssertEqual(terminal["/no/such/file.png"]?["detail"] as? String,
                       "decoding(unreadable): cannot read /no/such/file.png: No such file or directory")
        let corruptDetail = try XCTUnwrap(terminal[corrupt.path]?["detail"] as? String)
        XCTAssertTrue(corruptDetail.hasPrefix("decoding(") && corruptDetail.count > "decoding(corrupt): ".count,
                      "the codec's message: \(corruptDetail)")
        let summary = try XCTUnwrap(lines.last?["summary"] as? [String: Any])
        XCTAssertEqual(summary["loads"] as? Int, 5)
        XCTAssertEqual(summary["succeeded"] as? Int, 2)
        XCTAssertEqual(summary["fetches"] as? Int, 1, "no request for ftp, files or retries of permanent failures")
    }

    func testAnOutputThatCannotBeWrittenIsAFailure() async throws {
        let png = DecodeCommandTests.root.appendingPathComponent("Corpus/png/rgb-8.png").path
        let run = try await CommandRunner.run(["load", png, "--output", "/no/such/dir/out.rgba"])
        XCTAssertEqual(run.status, 73)
        XCTAssertTrue(run.stderr.contains("cannot write /no/such/dir/out.rgba: No such file or directory"), run.stderr)
        let help = try await CommandRunner.run(["load", "--help"])
        XCTAssertTrue(help.stdout.contains("urlsession"), "--help lists the transports: \(help.stdout)")
    }
}
