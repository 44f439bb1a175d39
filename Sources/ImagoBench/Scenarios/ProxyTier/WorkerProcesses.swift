import Foundation
import ImagoTestServer

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
    /// memory cache, and returns their reports once all have exited; throws when one fails or
    /// when they have not all exited within `limit` (default 60 s; the stragglers are killed).
    static func run(_ count: Int, executable: String, url: URL, scratch: URL,
                    within limit: Duration = .seconds(60)) async throws -> [Report] {
        var workers: [Worker] = []
        do {
            for index in 0..<count {
                workers.append(try Worker(index: index, executable: executable, url: url, scratch: scratch))
            }
        } catch {
            for worker in workers { await worker.end() }   // none left writing into the scratch directory
            throw error
        }
        // Every exit first (or its kill at the deadline), so a failure leaves no worker running.
        let deadline = ContinuousClock.now + limit
        var timedOut = false
        for worker in workers {
            while worker.process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            if worker.process.isRunning { timedOut = true; await worker.end() }
        }
        if timedOut { throw BenchError("proxy-tier workers for \(url) had not all exited after \(limit); killed") }
        var reports: [Report] = []
        for worker in workers {
            let text = (try? String(contentsOf: worker.output, encoding: .utf8)) ?? ""
            let status = worker.process.terminationStatus
            guard status == 0, let totalMs = summaryTotalMs(text) else {
                let errors = (try? String(contentsOf: worker.errors, encoding: .utf8)) ?? ""
                throw BenchError("proxy-tier worker \(worker.index) for \(url) exited \(status): \(errors.suffix(400)) \(text.suffix(400))")
            }
            reports.append(Report(timeToPixelsMs: totalMs))
        }
        return reports
    }

    /// One worker process and the files it writes its output and errors to.
    private struct Worker {
        let index: Int
        let process = Process()
        let output: URL
        let errors: URL

        init(index: Int, executable: String, url: URL, scratch: URL) throws {
            self.index = index
            let directory = scratch.appendingPathComponent("worker-\(index)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            output = directory.appendingPathComponent("stdout.txt")
            errors = directory.appendingPathComponent("stderr.txt")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["load", url.absoluteString, "--cache-dir", directory.appendingPathComponent("cache").path,
                                 "--no-memory-cache"]
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = try FileHandle(forWritingTo: errors)
            try process.run()
        }

        /// SIGTERM, then SIGKILL after 5 s (`Process.end`); returns once it has exited.
        func end() async { await process.end() }
    }

    /// `totalMs` of the last line, `{"summary":{…,"totalMs":…}}`.
    static func summaryTotalMs(_ output: String) -> Double? {
        guard let last = output.split(separator: "\n").last,
              let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any],
              let summary = object["summary"] as? [String: Any] else { return nil }
        return (summary["totalMs"] as? NSNumber)?.doubleValue
    }
}
