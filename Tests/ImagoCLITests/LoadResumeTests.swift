import Foundation
import ImagoTestServer
import XCTest

/// `imago load --cache-dir` with its default strategy (download to file, with a disk cache): a
/// download that stalls mid-body and times out is continued by the next run with a 206.
final class LoadResumeTests: XCTestCase {
    func testTheNextRunResumesAnInterruptedDownloadWithA206() async throws {
        let server = try await TestServer.start()
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cli-resume-\(UUID())")
        defer { try? FileManager.default.removeItem(at: cache) }
        let photo = try Data(contentsOf: DecodeCommandTests.root.appendingPathComponent("Corpus/jpeg/baseline-420-q85-1600x1200.jpg"))
        let half = photo.count / 2
        do {
            let url = server.url(for: "/photo.jpg").absoluteString
            server.setRoute("/photo.jpg", Route(body: [UInt8](photo), contentType: "image/jpeg",
                                                faults: Faults(stallAfterBytes: half, headers: ["Cache-Control": "max-age=3600"])))
            let stalled = try await CommandRunner.run(["load", url, "--cache-dir", cache.path, "--timeout", "0.5"])
            XCTAssertEqual(stalled.status, 1, stalled.stdout)
            XCTAssertTrue(stalled.stderr.contains("timedOut"), stalled.stderr)

            server.setRoute("/photo.jpg", Route(body: [UInt8](photo), contentType: "image/jpeg",
                                                faults: Faults(headers: ["Cache-Control": "max-age=3600"])))
            let resumed = try await CommandRunner.run(["load", url, "--cache-dir", cache.path])
            XCTAssertEqual(resumed.status, 0, resumed.stderr)
            let lines = try resumed.stdout.split(separator: "\n").map {
                try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            let success = try XCTUnwrap(lines.first { $0["phase"] as? String == "success" })
            XCTAssertEqual(success["width"] as? Int, 1600)
            XCTAssertEqual(success["diskCache"] as? String, "stored")
            let summary = try XCTUnwrap(lines.last?["summary"] as? [String: Any])
            XCTAssertEqual((summary["diskCache"] as? [String: Int])?["resumedDownloads"], 1)
            let requests = server.counters.snapshot.requestLog(for: "/photo.jpg")
            XCTAssertEqual(requests.count, 2)
            XCTAssertEqual(requests.last?.headers["range"], "bytes=\(half)-", "the second run asked only for the rest")
            XCTAssertEqual(server.counters.bodyBytesSent(for: "/photo.jpg"), photo.count, "no byte sent twice")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasPrefix(".tmp-") }
            XCTAssertEqual(leftovers, [], "the partial and its record are gone once the entry is stored")
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }
}
