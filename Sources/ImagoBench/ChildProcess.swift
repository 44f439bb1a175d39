import Foundation

/// Cold-process measurements: the bench re-runs its own executable as `imago bench-child
/// FILE`, which decodes once and prints the milliseconds, so the sample includes first-touch
/// page faults and lazy library set-up exactly as a new process sees them.
enum ChildProcess {
    static func firstDecodeMilliseconds(executable: String, file: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["bench-child", file]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let ms = Double(text) else {
            throw BenchError("bench-child \(file) failed (status \(process.terminationStatus)): \(text)")
        }
        return ms
    }
}
