import Foundation
import XCTest

/// The `imago memory` contract: one JSON line with the effective limit and the pressure
/// monitor's sources; with --watch, event lines and a summary. Runs the built executable.
final class MemoryCommandTests: XCTestCase {
    private func lines(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    func testPrintsTheLimitAsOneJSONLine() async throws {
        let result = try await CommandRunner.run(["memory"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = try lines(result.stdout)
        XCTAssertEqual(output.count, 1, result.stdout)
        let json = try XCTUnwrap(output.first)
        let bytes = try XCTUnwrap(json["bytes"] as? Int), physical = try XCTUnwrap(json["physicalBytes"] as? Int)
        XCTAssertGreaterThan(bytes, 0)
        XCTAssertLessThanOrEqual(bytes, physical)
        XCTAssertTrue(["cgroup v1", "cgroup v2", "physical memory"].contains(json["source"] as? String ?? ""), "\(json)")
        XCTAssertFalse((json["explanation"] as? String ?? "").isEmpty)
        for key in ["highBytes", "cgroupDirectory", "cgroupVersion", "usageBytes", "usageBesidesPageCacheBytes"] {
            XCTAssertTrue(json.keys.contains(key), "missing \(key)")   // null where unknown
        }
        if let usage = json["usageBytes"] as? Int {
            let besides = try XCTUnwrap(json["usageBesidesPageCacheBytes"] as? Int, "a usage, so a figure besides page cache")
            XCTAssertLessThanOrEqual(besides, usage)
        }
        let mechanisms = try XCTUnwrap(json["activeMechanisms"] as? [String])
        XCTAssertFalse(mechanisms.isEmpty, "something always watches, if only polling")
        XCTAssertNotNil(json["unavailableMechanisms"] as? [String])
    }

    func testWatchPrintsEventsThenASummary() async throws {
        let result = try await CommandRunner.run(["memory", "--watch", "0.3", "--simulate", "critical"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = try lines(result.stdout)
        XCTAssertGreaterThanOrEqual(output.count, 3, result.stdout)
        XCTAssertNotNil(output.first?["bytes"] as? Int)
        let event = output[1]
        XCTAssertEqual(event["level"] as? String, "critical")
        XCTAssertEqual(event["mechanism"] as? String, "simulated")
        XCTAssertNotNil(event["limitBytes"] as? Int)
        XCTAssertNotNil(event["elapsedSeconds"] as? Double)
        let summary = try XCTUnwrap(output.last?["summary"] as? [String: Any])
        XCTAssertGreaterThanOrEqual(summary["events"] as? Int ?? 0, 1)
        XCTAssertGreaterThanOrEqual(summary["seconds"] as? Double ?? 0, 0.3)
    }

    func testBadUsageExits64() async throws {
        for arguments in [["memory", "--watch", "0"], ["memory", "--simulate", "warning"],
                          ["memory", "--watch", "1", "--simulate", "extreme"]] {
            let status = try await CommandRunner.run(arguments).status
            XCTAssertEqual(status, 64, "\(arguments)")
        }
    }
}
