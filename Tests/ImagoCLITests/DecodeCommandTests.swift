import Foundation
import XCTest

/// The `imago decode` contract other tools rely on: one JSON line, tightly packed RGBA output,
/// exit 65 for undecodable and 66 for unreadable files. Runs the built executable.
final class DecodeCommandTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func corpus(_ file: String) -> String { Self.root.appendingPathComponent("Corpus/\(file)").path }

    func testDecodePrintsOneJSONLineAndWritesPackedRGBA() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cli-\(UUID()).rgba")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await CommandRunner.run(["decode", corpus("png/rgba-8.png"), "--output", output.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(json["format"] as? String, "png")
        let width = try XCTUnwrap(json["width"] as? Int), height = try XCTUnwrap(json["height"] as? Int)
        XCTAssertEqual(json["bytesPerRow"] as? Int, width * 4)
        XCTAssertEqual(json["orientation"] as? Int, 1)
        XCTAssertNotNil(json["decodeMs"] as? Double)
        XCTAssertEqual(try Data(contentsOf: output).count, width * height * 4)
    }

    func testOrientationAndDownsamplingFlags() async throws {
        let result = try await CommandRunner.run(["decode", corpus("jpeg/orientation-6.jpg"), "--apply-orientation", "--max-pixel-size", "16"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["orientation"] as? Int, 6)
        XCTAssertLessThanOrEqual(max(json["width"] as? Int ?? 99, json["height"] as? Int ?? 99), 16)
    }

    func testUndecodableExits65AndUnreadableExits66() async throws {
        let bad = try await CommandRunner.run(["decode", corpus("invalid/empty.bin")])
        XCTAssertEqual(bad.status, 65)
        XCTAssertTrue(bad.stderr.hasPrefix("error: "), bad.stderr)
        let missing = try await CommandRunner.run(["decode", "/nonexistent/image.png"])
        XCTAssertEqual(missing.status, 66)
    }

    func testDirectoryModePrintsALinePerFileThenASummary() async throws {
        let result = try await CommandRunner.run(["decode", Self.root.appendingPathComponent("Corpus/invalid").path])
        XCTAssertEqual(result.status, 65, "every file there is invalid")
        let lines = result.stdout.split(separator: "\n")
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(lines.last).utf8)) as? [String: Any])
        let counts = try XCTUnwrap(summary["summary"] as? [String: Any])
        XCTAssertEqual(counts["files"] as? Int, lines.count - 1)
        XCTAssertEqual(counts["decoded"] as? Int, 0)
        for line in lines.dropLast() {
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertNotNil(json["error"] as? String)
            XCTAssertNotNil(json["kind"] as? String)
        }
    }
}
