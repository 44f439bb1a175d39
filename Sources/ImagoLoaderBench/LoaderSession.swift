import Foundation
import ImagoConformance
import ImagoTestServer

/// Drives one subject's loaders against a server: makes loaders from fresh or
/// shared contexts, times single loads to pixels, starts crowds of identical loads and runs
/// throughput. Every call is on the main actor, where `LoaderUnderTest` lives.
@MainActor
final class LoaderSession {
    let subject: ConformanceSubject
    /// The URL a path is served at (the bench's local server; a memory probe's child gets whole URLs).
    let url: @Sendable (String) -> URL
    /// Where this session's cache and temporary directories go (removed by the owner).
    let scratch: URL
    /// How long one load may take (`LoaderBenchPlan.loadTimeout`).
    let timeout: Duration
    /// False once a model was timed through `observe(_:)` (its adapter's conversion included).
    private(set) var timedPixelsReadyOnly = true

    init(subject: ConformanceSubject, url: @escaping @Sendable (String) -> URL, scratch: URL, timeout: Duration) {
        self.subject = subject
        self.url = url
        self.scratch = scratch
        self.timeout = timeout
    }

    /// A context on new, empty directories with `strategy` (nil: the loader's own).
    func makeContext(strategy: LoaderContext.FetchStrategy?) throws -> LoaderContext {
        let base = scratch.appendingPathComponent(UUID().uuidString, isDirectory: true)
        let cache = base.appendingPathComponent("cache", isDirectory: true)
        let temporary = base.appendingPathComponent("tmp", isDirectory: true)
        for directory in [cache, temporary] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        var context = LoaderContext(cacheDirectory: cache, temporaryDirectory: temporary)
        context.fetchStrategy = strategy
        return context
    }

    /// A loader built from `context`: a second one on the same context is the app after a restart.
    func makeLoader(_ context: LoaderContext) throws -> any LoaderUnderTest {
        do {
            return try subject.makeLoader(context)
        } catch {
            throw LoaderBenchError.loaderCreationFailed(subject: subject.name, reason: "\(error)")
        }
    }

    /// Loads `path` through a new model of `loader`; the milliseconds from `load()` to the
    /// published success, and where the image came from.
    func timedLoad(_ loader: any LoaderUnderTest, path: String) async throws -> (ms: Double, origin: ObservedOrigin) {
        let (model, latch) = prepare(loader, path: path)
        let start = ContinuousClock.now
        model.load()
        let end = try await finish(latch, path: path)
        // A model released mid-load may cancel it: keep it until the load has ended.
        withExtendedLifetime(model) {}
        guard case .success(let origin, _, _) = end.outcome else { preconditionFailure("a latch holds successes only") }
        return ((end.at - start).seconds * 1000, origin)
    }

    /// Starts `count` models of `loader` on `path` together (each `load()` called before any
    /// result is awaited) and waits until every one has its pixels.
    func loadTogether(_ loader: any LoaderUnderTest, path: String, count: Int) async throws {
        let started = (0..<count).map { _ in prepare(loader, path: path) }
        for (model, _) in started { model.load() }
        for (_, latch) in started { _ = try await finish(latch, path: path) }
    }

    /// Images per second loading every path through `loader`, `concurrency` at a time: a slot
    /// that frees starts the next load at once, as the control's task group does.
    func throughput(_ loader: any LoaderUnderTest, paths: [String], concurrency: Int) async throws -> Double {
        guard !paths.isEmpty else { return 0 }
        let start = ContinuousClock.now
        // Models in flight, by index: a model released mid-load may cancel it.
        var running: [Int: any ModelUnderTest] = [:]
        let (finished, continuation) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        var next = 0
        func startNext() {
            let index = next, path = paths[index]
            let (model, latch) = prepare(loader, path: path)
            running[index] = model
            model.load()
            Task {
                do {
                    _ = try await finish(latch, path: path)
                    continuation.yield(.success(index))
                } catch {
                    continuation.yield(.failure(error))
                }
            }
            next += 1
        }
        while next < min(max(1, concurrency), paths.count) { startNext() }
        var done = 0
        for await result in finished {
            running[try result.get()] = nil
            done += 1
            if done == paths.count { break }
            if next < paths.count { startNext() }
        }
        continuation.finish()
        return Double(paths.count) / (ContinuousClock.now - start).seconds
    }

    /// A new model for `path`, already reporting its end to a latch.
    private func prepare(_ loader: any LoaderUnderTest, path: String) -> (any ModelUnderTest, OutcomeLatch) {
        let model = loader.makeModel(source: ConformanceSource(url: url(path)))
        let latch = OutcomeLatch()
        if !model.timesPixelsReady { timedPixelsReadyOnly = false }
        model.report(to: latch, subject: subject.name, path: path)
        return (model, latch)
    }

    /// The latch's end, or `timedOut` after `timeout`.
    private func finish(_ latch: OutcomeLatch, path: String) async throws -> AttemptEnd {
        let (subject, timeout) = (subject.name, timeout)
        let timer = Task {
            try await Task.sleep(for: timeout)
            latch.deliver(.failure(.timedOut(subject: subject, path: path, after: timeout)))
        }
        defer { timer.cancel() }
        return try await latch.wait()
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
