import Foundation
import XCTest

/// Runs one test method of this very test binary in a child process, as another process using
/// the same cache directory would. The child test reads its orders from environment variables
/// and does nothing in a normal run.
struct ChildTestProcess {
    let process = Process()
    let output = Pipe()
    let progress = Pipe()

    /// Prepares (does not start) `ImagoTests.<testName>` with `environment` added.
    /// Throws `XCTSkip` when the test binary cannot be found (e.g. an unusual runner).
    init(testName: String, environment: [String: String]) throws {
        guard let executable = Self.testExecutable() else { throw XCTSkip("test executable not found") }
        process.executableURL = executable
        process.arguments = ["ImagoTests." + testName]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = progress
    }

    func run() throws { try process.run() }

    /// Blocks until the child has written at least `count` progress lines on its standard
    /// error, or it ended first; returns how many it had written (reads come in chunks, so
    /// possibly a few more). The child writes them unbuffered, so this is a
    /// counter, not a sleep: the kill lands while the child is busy with later operations.
    func waitForProgressLines(_ count: Int) -> Int {
        var seen = 0
        let reader = progress.fileHandleForReading
        while seen < count {
            let chunk = reader.availableData
            if chunk.isEmpty { break }   // end of file: the child exited
            seen += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        return seen
    }

    /// The XCTest summary and whatever else the child printed, after it has exited.
    func finish() -> (status: Int32, reason: Process.TerminationReason, report: String) {
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try? progress.fileHandleForReading.close()
        return (process.terminationStatus, process.terminationReason, report)
    }

    /// Writes one progress line straight to file descriptor 2 (no stdio buffering), from the
    /// child's side.
    static func reportProgress(_ line: String = "op") {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func testExecutable() -> URL? {
        let candidates = [CommandLine.arguments.first, try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")]
        return candidates.compactMap { $0 }.map { URL(fileURLWithPath: $0) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) && $0.path.hasSuffix(".xctest") }
    }
}
