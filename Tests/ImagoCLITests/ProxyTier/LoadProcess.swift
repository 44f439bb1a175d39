import Foundation
import ImagoTestServer

/// One `imago load` child process of a proxy tier test: its own cache directory and pixel
/// output, its standard output and error going to files (no pipe to drain while the test waits
/// on other things), its exit awaited without blocking a thread.
final class LoadProcess: @unchecked Sendable {   // its state is set in init, then only read
    /// What the process printed and how it ended.
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
        /// Every JSON line of standard output, in order.
        var lines: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        /// The `success` phase line (there is one per load; these tests load once).
        var success: [String: Any]? { lines.first { $0["phase"] as? String == "success" } }
        /// The closing `{"summary":…}` object.
        var summary: [String: Any]? { lines.last?["summary"] as? [String: Any] }
    }

    let index: Int
    let cacheDirectory: URL
    let pixelFile: URL
    private let stdoutFile: URL
    private let stderrFile: URL
    private let process = Process()
    private let exited: AsyncStream<Int32>

    /// Starts `imago load URL --cache-dir DIR --output FILE` plus `extraArguments`, with
    /// its files under `scratch/process-INDEX/` (the cache directory is kept between rounds).
    init(index: Int, url: URL, scratch: URL, extraArguments: [String]) throws {
        self.index = index
        let directory = scratch.appendingPathComponent("process-\(index)")
        cacheDirectory = Self.cacheDirectory(in: scratch, index: index)
        pixelFile = directory.appendingPathComponent("pixels.rgba")
        stdoutFile = directory.appendingPathComponent("stdout.txt")
        stderrFile = directory.appendingPathComponent("stderr.txt")
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        for file in [pixelFile, stdoutFile, stderrFile] {
            try? FileManager.default.removeItem(at: file)
            FileManager.default.createFile(atPath: file.path, contents: nil)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        exited = stream
        process.executableURL = CommandRunner.executable
        process.arguments = ["load", url.absoluteString, "--cache-dir", cacheDirectory.path,
                             "--output", pixelFile.path] + extraArguments
        process.standardOutput = try FileHandle(forWritingTo: stdoutFile)
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        process.terminationHandler = { process in
            continuation.yield(process.terminationStatus)
            continuation.finish()
        }
        try process.run()
    }

    /// Waits for the exit (at most `timeout`, default 60 s, then kills it) and reads what it printed.
    func outcome(timeout: Duration = .seconds(60)) async -> Outcome {
        let status = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { [exited] in await exited.first { _ in true } }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if status == nil { await end() }
        func read(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        return Outcome(status: status ?? -1, stdout: read(stdoutFile),
                       stderr: (status == nil ? "killed after \(timeout)\n" : "") + read(stderrFile))
    }

    /// Sends SIGTERM (the CLI cancels its loads and exits) if it is still running.
    func terminate() {
        if process.isRunning { process.terminate() }
    }

    /// Ends the process whatever state it is in (`Process.end`: SIGTERM, then SIGKILL after 5 s).
    func end() async { await process.end() }

    /// The decoded pixels it wrote with `--output` (empty when it wrote none).
    var pixels: Data { (try? Data(contentsOf: pixelFile)) ?? Data() }

    /// The disk cache directory of process `index` of the rounds run in `scratch`.
    static func cacheDirectory(in scratch: URL, index: Int) -> URL {
        scratch.appendingPathComponent("process-\(index)/cache")
    }

    /// Payload files in the disk cache of process `index`: names of 64 lowercase hex digits
    /// (the cache's naming, `DiskCacheNaming`); sidecars, temporaries and the lock not counted.
    static func cachedPayloads(in scratch: URL, index: Int) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory(in: scratch, index: index).path)) ?? []
        return names.filter { name in
            name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
    }

    /// Every process's outcome, in index order, all within one deadline (60 s from now): the
    /// processes run at once, so one that hangs must not add its own minute to the others'.
    static func outcomes(_ processes: [LoadProcess], within limit: Duration = .seconds(60)) async -> [Outcome] {
        let deadline = ContinuousClock.now + limit
        var outcomes: [Outcome] = []
        for process in processes {
            outcomes.append(await process.outcome(timeout: max(.seconds(1), deadline - ContinuousClock.now)))
        }
        return outcomes
    }
}
