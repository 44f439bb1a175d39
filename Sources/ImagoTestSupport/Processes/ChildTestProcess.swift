import Foundation
import ImagoBench

/// Runs one XCTest method of this very test binary in a child process, as another process using
/// the same files (a cache directory) would. The child test reads its orders from environment
/// variables and does nothing in a normal run. A ``ProcessWatchdog`` kills the child if it is
/// still running after the timeout, so no wait below is unbounded.
public final class ChildTestProcess {
    /// The child (started by ``run()``).
    public let process = Process()
    private let output = Pipe()
    private let progress = Pipe()
    private let timeout: Duration
    private var watchdog: ProcessWatchdog?

    /// Prepares (does not start) the XCTest method `test` (`Module.Class/testMethod`) with
    /// `environment` added to this process's own; the child is killed if still running after
    /// `timeout` (default 5 minutes). Skips the running test (``TestSkip``) when the test binary
    /// cannot be found (an unusual runner).
    public init(test: String, environment: [String: String], timeout: Duration = .seconds(300)) throws {
        guard let executable = BuiltProducts.testBinary else { try TestSkip.skip("test executable not found") }
        process.executableURL = executable
        process.arguments = [test]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = progress
        self.timeout = timeout
    }

    /// Starts the child.
    public func run() throws {
        try process.run()
        watchdog = ProcessWatchdog(pid: process.processIdentifier, timeout: timeout)
    }

    /// A child still running when its test is done (the test failed early) is killed and
    /// reaped: none is left behind.
    deinit {
        process.killAndReapIfRunning()
        watchdog?.disarm()
    }

    /// Blocks until the child has written at least `count` progress lines on its standard
    /// error, or it ended first; returns how many it had written (reads come in chunks, so
    /// possibly a few more). The child writes them unbuffered, so this is a counter, not a
    /// sleep: a kill sent after it lands while the child is busy with later operations.
    public func waitForProgressLines(_ count: Int) -> Int {
        var seen = 0
        let reader = progress.fileHandleForReading
        while seen < count {
            let chunk = reader.availableData
            if chunk.isEmpty { break }   // end of file: the child exited
            seen += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        return seen
    }

    /// ``finish()``, waited for on a thread of its own (`onOwnThread`), never on one of the
    /// cooperative pool's that the other tests share: the form for a swift-testing test.
    public func finished() async -> (status: Int32, reason: Process.TerminationReason, report: String) {
        let handOver = HandOver(child: self)
        return await onOwnThread { handOver.child.finish() }
    }

    /// Hands the child to the waiting thread. The test awaits that thread and does not touch the
    /// child meanwhile, so one thread at a time uses it.
    private struct HandOver: @unchecked Sendable {
        let child: ChildTestProcess
    }

    /// The XCTest summary and whatever else the child printed, once it has exited. A child the
    /// watchdog killed says so at the start of `report`.
    public func finish() -> (status: Int32, reason: Process.TerminationReason, report: String) {
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let killed = watchdog?.disarm() ?? false
        try? progress.fileHandleForReading.close()
        return (process.terminationStatus, process.terminationReason, (killed ? "killed after \(timeout)\n" : "") + report)
    }

    /// Writes one progress line straight to file descriptor 2 (no stdio buffering), from the
    /// child's side.
    public static func reportProgress(_ line: String = "op") {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
