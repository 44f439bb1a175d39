import Foundation
import ImagoBench
import ImagoConformance

/// One memory measurement of the loader scenario, made in a fresh process: the bench starts its
/// own executable again, with the same arguments and this probe in the environment, and the
/// entry point (`LoaderBench.run`, `imago bench`) hands over to `serveIfRequested` before
/// anything else. A fresh process is the only honest place: in the bench's own, memory that
/// earlier steps freed (PixelMemory's retained mappings, the top of glibc's thread arenas) serves
/// the next step unseen (measured: a control run after a loader's showed 0 MiB of growth).
struct LoaderMemoryProbe: Codable, Sendable {
    /// Which side of the comparison the child measures.
    enum Side: String, Codable, Sendable { case loader, control }

    /// The conformance subject's name (its loader is made from a fresh context in the child).
    var subject: String
    var side: Side
    /// The images, loaded `concurrency` at a time (each URL once).
    var urls: [URL]
    var concurrency: Int
    /// Where the child puts the loader's cache and temporary directories (removed by the child).
    var scratch: String
    /// How long one load may take (`LoaderBenchPlan.loadTimeout`), in seconds.
    var loadTimeoutSeconds: Double

    /// What the child prints: growth over its resident size before the loads.
    struct Reading: Codable, Sendable, Equatable {
        /// The resident high-water mark during the loads, over the size before them.
        var peakGrowthBytes: Int
        /// The resident size once the loader (or the control's images) was released, every pixel
        /// buffer freed and the kept memory handed back, over the size before the loads.
        var heldAfterBytes: Int
        /// Whether every pixel buffer made by the loads was freed within 5 s of the release.
        var imagesReleased: Bool
    }

    /// The environment variable that carries a probe (JSON) to the child.
    static let environmentVariable = "IMAGO_LOADER_MEMORY_PROBE"
    /// How long a child may run before it is killed: 5 minutes.
    static let childTimeout: Duration = .seconds(300)

    /// Runs this probe in a fresh `executable` started with `arguments` (the bench's own).
    func measure(executable: String, arguments: [String]) async throws -> Reading {
        var environment = ProcessInfo.processInfo.environment
        environment[Self.environmentVariable] = String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
        let (executable, environmentCopy) = (executable, environment)
        // CapturedRun waits for the child: on a thread of its own, not one of the cooperative pool's.
        let ending = try await onOwnThread {
            try CapturedRun.run(executable, arguments, timeout: Self.childTimeout, environment: environmentCopy)
        }
        let output = String(decoding: ending.standardOutput, as: UTF8.self)
        guard ending.exitStatus == 0, let line = output.split(separator: "\n").last,
              let reading = try? JSONDecoder().decode(Reading.self, from: Data(line.utf8)) else {
            let errors = String(decoding: ending.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw LoaderBenchError.memoryProbeFailed(subject: subject, side: side.rawValue,
                                                     reason: errors.isEmpty ? Self.ending(ending) : errors)
        }
        return reading
    }

    /// How the child ended, when it said nothing on standard error.
    private static func ending(_ ending: CapturedRun.Ending) -> String {
        if ending.timedOut { return "no reading within \(childTimeout); killed" }
        if let signal = ending.signal { return "killed by signal \(signal)" }
        return "exit \(ending.exitStatus ?? -1) without a reading"
    }

    /// The probe this process was started for, if any.
    static func requested() -> LoaderMemoryProbe? {
        guard let json = ProcessInfo.processInfo.environment[environmentVariable] else { return nil }
        return try? JSONDecoder().decode(LoaderMemoryProbe.self, from: Data(json.utf8))
    }

    /// The child's side: when this process was started for a probe, measures it among
    /// `subjects`, prints the reading as one JSON line and exits (1, with the reason on standard
    /// error, when it could not). Returns only when no probe was asked for.
    @MainActor
    static func serveIfRequested(subjects: [ConformanceSubject]) async {
        guard ProcessInfo.processInfo.environment[environmentVariable] != nil else { return }
        do {
            guard let probe = requested() else { throw LoaderBenchError.memoryProbeUnreadable }
            let reading = try await probe.read(subjects: subjects)
            print(String(decoding: try JSONEncoder().encode(reading), as: UTF8.self))
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(1)
        }
    }

    @MainActor
    private func read(subjects: [ConformanceSubject]) async throws -> Reading {
        guard let subject = subjects.first(where: { $0.name == self.subject }) else {
            throw LoaderBenchError.unknownSubject(self.subject, known: subjects.map(\.name))
        }
        // Before anything is allocated: every buffer of 128 KiB and more is mapped on its own, so
        // what is freed leaves the resident size (see ProcessMemory.mapLargeAllocations).
        ProcessMemory.mapLargeAllocations(from: 128 << 10)
        let directory = URL(fileURLWithPath: scratch, isDirectory: true).appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = LoaderSession(subject: subject, url: { URL(string: $0) ?? URL(fileURLWithPath: $0) },
                                    scratch: directory, timeout: .seconds(loadTimeoutSeconds))
        let paths = urls.map(\.absoluteString)
        // The shared HTTP client and its event loops (the control's, and the ones a loader on
        // AsyncHTTPClient shares) stay for the process's life: set up before the reading, on
        // both sides, so neither side's "held" is their set-up.
        if let first = urls.first {
            do {
                try await RawControl().warmUp(first)
            } catch {
                throw LoaderBenchError.controlFailed(path: first.absoluteString, reason: "\(error)")
            }
        }
        let meter = ResidentMeter()
        switch side {
        case .loader:
            // The loader and its models are released when this scope ends.
            try await { @MainActor in
                let loader = try session.makeLoader(try session.makeContext(strategy: nil))
                _ = try await session.throughput(loader, paths: paths, concurrency: concurrency)
            }()
        case .control:
            do {
                _ = try await RawControl().load(urls, concurrency: concurrency)
            } catch {
                throw LoaderBenchError.controlFailed(path: paths.first ?? "", reason: "\(error)")
            }
        }
        let peak = meter.peakBytes()
        let (after, _, imagesReleased) = await meter.finish()
        return Reading(peakGrowthBytes: peak - meter.beforeBytes, heldAfterBytes: after - meter.beforeBytes,
                       imagesReleased: imagesReleased)
    }
}
