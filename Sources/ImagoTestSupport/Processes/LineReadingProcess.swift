import Foundation

/// A running child whose standard output is read line by line while it runs, so a test can act
/// (send a signal) at a precise point of its output. Standard error is collected at the end. A
/// ``ProcessWatchdog`` kills it after the timeout, so a read never waits forever.
public final class LineReadingProcess {
    /// The child (started by init).
    public let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private let watchdog: ProcessWatchdog
    private var buffered = Data()
    /// Every whole line read so far, in order.
    public private(set) var lines: [String] = []

    /// Starts `executable arguments` with `environment` added to this process's own (default
    /// nothing added); it is killed if still running after `timeout` (default 2 minutes).
    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                timeout: Duration = .seconds(120)) throws {
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        watchdog = ProcessWatchdog(pid: process.processIdentifier, timeout: timeout)
    }

    /// A child the test did not interrupt (it failed early) is killed and reaped: none is left
    /// running after its test.
    deinit {
        process.killAndReapIfRunning()
        watchdog.disarm()
    }

    /// Reads lines until one satisfies `condition` (true) or the output ends (false).
    public func readLines(until condition: (String) -> Bool) -> Bool {
        let handle = output.fileHandleForReading
        while true {
            while let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered = Data(buffered[buffered.index(after: newline)...])
                lines.append(line)
                if condition(line) { return true }
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return false }
            buffered.append(chunk)
        }
    }

    /// Sends `signal`, reads the rest of the output, waits for the exit and returns the exit
    /// status with standard error.
    public func interrupt(with signal: Int32) -> (status: Int32, stderr: String) {
        kill(process.processIdentifier, signal)
        _ = readLines { _ in false }
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let killed = watchdog.disarm()
        return (process.terminationStatus, (killed ? "killed after the timeout\n" : "") + String(decoding: stderr, as: UTF8.self))
    }
}
