import Foundation

/// Fresh-process measurements: the bench re-runs its own executable, so each sample sees
/// first-touch page faults, lazy library set-up and an empty heap exactly as a new process
/// does, and no scenario can contaminate another's memory figures.
public enum ChildProcess {
    /// `imago bench-child FILE`: the first decode in a new process, in milliseconds.
    public static func firstDecodeMilliseconds(executable: String, file: String) throws -> Double {
        let text = try run(executable, ["bench-child", file])
        guard let ms = Double(text) else { throw BenchError("bench-child \(file) printed \(text)") }
        return ms
    }

    /// `imago bench-probe JSON`: one memory probe in a new process.
    public static func probe(executable: String, _ probe: MemoryProbe) throws -> MemoryProbeResult {
        let spec = String(decoding: try JSONEncoder().encode(probe), as: UTF8.self)
        let text = try run(executable, ["bench-probe", spec])
        do {
            return try JSONDecoder().decode(MemoryProbeResult.self, from: Data(text.utf8))
        } catch {
            throw BenchError("bench-probe printed \(text)")
        }
    }

    /// Runs the executable and returns its trimmed standard output; throws with its standard
    /// error when it fails.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read stderr concurrently so a chatty child cannot block on a full pipe.
        let errorText = PipeDrain(errors.fileHandleForReading)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else {
            throw BenchError("\(arguments.first ?? "child") failed (status \(process.terminationStatus)): \(errorText.text)")
        }
        return text
    }
}
