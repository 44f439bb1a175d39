import Foundation
import ImagoTestServer
import XCTest

/// `imago load` meets Ctrl-C and SIGTERM mid-transfer: it cancels, removes its downloads,
/// keeps every line it printed (also through a pipe) and exits as a shell expects.
final class LoadInterruptTests: XCTestCase {
    private func json(_ line: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    func testSignalsMidBodyCancelCleanUpAndExitWith128PlusTheSignal() async throws {
        let server = try await TestServer.start()
        let body = [UInt8](repeating: 0x5a, count: 2 << 20)
        let held = Gate()
        // The body stops after 256 KiB until the gate opens (never, here): a transfer in flight.
        server.setRoute("/big.png", Route(body: body, faults: Faults(stallAfterBytes: 256 << 10, gate: held)))
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("imago-interrupt-\(UUID())")
        defer { try? FileManager.default.removeItem(at: cache) }
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            let command = try RunningCommand(["load", server.url(for: "/big.png").absoluteString,
                                              "--strategy", "file", "--cache-dir", cache.path])
            // Output arrives line by line through the pipe while the load runs.
            let midBody = command.readLines { line in
                (self.json(line)?["received"] as? Int ?? 0) >= 256 << 10
            }
            XCTAssertTrue(midBody, "no progress line before the stall: \(command.lines)")
            let downloads = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasPrefix(".tmp-") }
            XCTAssertEqual(downloads.count, 1, "the download is in the cache directory while it runs")
            let (exitStatus, stderr) = command.interrupt(with: signal)
            XCTAssertEqual(exitStatus, status, stderr)
            XCTAssertTrue(stderr.contains("interrupted by signal \(signal)"), stderr)
            XCTAssertTrue(command.lines.allSatisfy { json($0) != nil }, "every line is whole JSON: \(command.lines)")
            XCTAssertNotNil(command.lines.last.flatMap(json)?["summary"], "the summary is printed")
            let left = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0 != ".lock" }
            XCTAssertEqual(left, [], "signal \(signal): nothing left behind")
        }
        held.open()
        try await server.shutdown()
    }

    /// Without a disk cache the downloads live in a directory of the run's own under TMPDIR,
    /// which is gone after the signal.
    func testWithoutACacheTheRunsTemporaryDirectoryIsGoneAfterASignal() async throws {
        let server = try await TestServer.start()
        let held = Gate()
        server.setRoute("/big.png", Route(body: [UInt8](repeating: 0x5a, count: 2 << 20),
                                          faults: Faults(stallAfterBytes: 256 << 10, gate: held)))
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("imago-tmpdir-\(UUID())")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let command = try RunningCommand(["load", server.url(for: "/big.png").absoluteString, "--strategy", "file"],
                                         temporaryDirectory: tmp)
        XCTAssertTrue(command.readLines { (self.json($0)?["received"] as? Int ?? 0) >= 256 << 10 }, "\(command.lines)")
        let during = try FileManager.default.subpathsOfDirectory(atPath: tmp.path)
        XCTAssertTrue(during.contains { $0.contains(".tmp-imago-download-") }, "the download is under TMPDIR: \(during)")
        let (status, stderr) = command.interrupt(with: SIGINT)
        XCTAssertEqual(status, 130, stderr)
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: tmp.path), [], "nothing left under TMPDIR")
        held.open()
        try await server.shutdown()
    }
}
