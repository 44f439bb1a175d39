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

    /// Longest a probe child may run before it is killed (10 minutes): a hung child must not
    /// hang `make bench-check` in CI.
    static let timeout: Duration = .seconds(600)

    /// Runs the executable and returns its trimmed standard output; throws with its standard
    /// error when it fails (a non-zero exit, a signal, the timeout).
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let ending = try CapturedRun.run(executable, arguments, timeout: timeout)
        let text = String(decoding: ending.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard ending.exitStatus == 0 else {
            let errors = String(decoding: ending.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw BenchError("\(arguments.first ?? "child") failed (\(ending.end.description)): \(errors)")
        }
        return text
    }
}
