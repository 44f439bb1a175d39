import Foundation

/// Runs the built `imago` executable and captures its output.
enum CommandRunner {
    /// The `imago` executable beside this test bundle (SwiftPM builds it: this target depends on it).
    static var executable: URL {
        var directory = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("imago").path),
              directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("imago")
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

}

/// A running `imago` whose standard output is read line by line while it runs, so a test can
/// act (send a signal) at a precise point of its output.
final class RunningCommand {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffered = Data()
    private(set) var lines: [String] = []

    /// `temporaryDirectory`: the child's TMPDIR (default: inherited).
    init(_ arguments: [String], temporaryDirectory: URL? = nil) throws {
        process.executableURL = CommandRunner.executable
        process.arguments = arguments
        if let temporaryDirectory {
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = temporaryDirectory.path
            process.environment = environment
        }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Reads lines until one satisfies `condition` (true) or the output ends (false).
    func readLines(until condition: (String) -> Bool) -> Bool {
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

    /// Sends `signal`, reads the rest of the output and waits for the exit.
    func interrupt(with signal: Int32) -> (status: Int32, stderr: String) {
        kill(process.processIdentifier, signal)
        _ = readLines { _ in false }
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
    }
}
