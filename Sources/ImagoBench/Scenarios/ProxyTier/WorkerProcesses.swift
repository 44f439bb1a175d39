import Foundation

/// A fleet of `imago load` worker processes started at once, each with its own disk cache,
/// for the proxy tier scenario: what each one reports, awaited without blocking a thread.
struct WorkerProcesses {
    /// One worker's account of its load.
    struct Report: Sendable {
        /// The summary's `totalMs`: from the pipeline's start to its last phase, the load's
        /// time to pixels without the process's own start-up.
        let timeToPixelsMs: Double
    }

    /// Starts `count` workers loading `url`, each with `--cache-dir scratch/worker-I` and no
    /// memory cache, and returns their reports once all have exited; throws when one fails.
    static func run(_ count: Int, executable: String, url: URL, scratch: URL) async throws -> [Report] {
        var processes: [(Process, URL, AsyncStream<Int32>)] = []
        for index in 0..<count {
            let directory = scratch.appendingPathComponent("worker-\(index)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let output = directory.appendingPathComponent("stdout.txt")
            FileManager.default.createFile(atPath: output.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["load", url.absoluteString, "--cache-dir", directory.appendingPathComponent("cache").path,
                                 "--no-memory-cache"]
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = FileHandle.nullDevice
            let (exited, continuation) = AsyncStream.makeStream(of: Int32.self)
            process.terminationHandler = { continuation.yield($0.terminationStatus); continuation.finish() }
            try process.run()
            processes.append((process, output, exited))
        }
        // Every exit first, so a failure leaves no worker writing into the scratch directory.
        var statuses: [Int32] = []
        for (_, _, exited) in processes { statuses.append(await exited.first { _ in true } ?? -1) }
        var reports: [Report] = []
        for (index, ((_, output, _), status)) in zip(processes, statuses).enumerated() {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            guard status == 0, let totalMs = summaryTotalMs(text) else {
                throw BenchError("proxy-tier worker \(index) for \(url) exited \(status): \(text.suffix(400))")
            }
            reports.append(Report(timeToPixelsMs: totalMs))
        }
        return reports
    }

    /// `totalMs` of the last line, `{"summary":{…,"totalMs":…}}`.
    static func summaryTotalMs(_ output: String) -> Double? {
        guard let last = output.split(separator: "\n").last,
              let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any],
              let summary = object["summary"] as? [String: Any] else { return nil }
        return (summary["totalMs"] as? NSNumber)?.doubleValue
    }
}
