import Foundation
import ImagoTestServer

/// What one check works with: the subject, the loopback server (routes under a path prefix of
/// its own), fresh directories, and the evidence it gathers for the report: notes, and the
/// steps it takes, recorded by wrapping the loaders and models it hands out.
@MainActor
public final class CheckRun {
    /// The loader configuration under test: its capabilities decide what the check may ask.
    public let subject: ConformanceSubject
    /// The loopback server this subject's checks share; this check's routes live under its own
    /// path prefix (the rule ID, lowercased).
    public let server: TestServer
    /// The shipped images a check serves.
    public let images: ConformanceImages
    /// How long a check waits to see that nothing more is published (default 150 ms). Only
    /// proofs of absence wait this long; every ordering is decided by gates and counters.
    public let settleWindow: Duration
    /// The context `loader()` uses; a check may adjust it before building loaders.
    public var context: LoaderContext
    /// The run's seed (`ConformanceRunner.seed`): a model-based check draws its sequences from it
    /// mixed with its rule ID (`SeededGenerator.seed(_:for:)`), so `imago conform --seed S`
    /// replays them.
    public let seed: UInt64
    /// How much a model-based check explores (`ConformanceRunner.budget`).
    public let budget: ExplorationBudget
    /// The check's rule ID, e.g. `MODEL-PHASES`.
    public let rule: String
    private let prefix: String
    private let root: URL
    private var notes: [String] = []
    /// Set by `partial(_:)`: what a passing check could not see.
    private(set) var partialReason: String?
    private var contexts = 0
    private let stepLog = StepLog()
    /// Every recorder `model(_:_:)` attached, with the synchronous reads of its model: judged at
    /// the end of the check (`observerViolation()`). Holds neither model.
    private var observed: [(reads: SynchronousReads, recorder: PhaseRecorder)] = []
    /// Gates already reporting their opening as a step, by the first path they hold.
    private var watchedGates: [ObjectIdentifier: String] = [:]

    init(subject: ConformanceSubject, server: TestServer, images: ConformanceImages, rule: String,
         root: URL, settleWindow: Duration, seed: UInt64 = 0, budget: ExplorationBudget = .standard) throws {
        self.subject = subject
        self.seed = seed
        self.budget = budget
        self.rule = rule
        self.server = server
        self.images = images
        self.prefix = "/" + rule.lowercased()
        self.root = root
        self.settleWindow = settleWindow
        self.context = LoaderContext(cacheDirectory: root, temporaryDirectory: root)
        self.context = try newContext()
    }

    /// A context with fresh, empty directories (a second, unrelated app).
    public func newContext() throws -> LoaderContext {
        contexts += 1
        if contexts > 1 { step("context \(contexts) created: empty cache and temporary directories") }
        let base = root.appendingPathComponent("context-\(contexts)")
        let cache = base.appendingPathComponent("cache")
        let temporary = base.appendingPathComponent("tmp")
        for directory in [cache, temporary] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        return LoaderContext(cacheDirectory: cache, temporaryDirectory: temporary)
    }

    /// A new loader instance for `context` (default: the run's): same context, same disk cache.
    /// Its models, cache probe actions and release are recorded as steps.
    public func loader(_ context: LoaderContext? = nil) throws -> any LoaderUnderTest {
        let context = context ?? self.context
        let label = "loader \(stepLog.nextLoaderNumber())"
        let loader = try subject.makeLoader(context)
        step("\(label) created on \(context.cacheDirectory.deletingLastPathComponent().lastPathComponent)"
             + Self.describe(context))
        return RecordingLoader(loader, label: label, log: stepLog)
    }

    /// Serves `image` at a path of this check's own and returns its source. The response says
    /// `Cache-Control: max-age=86400` (unless `faults` sets its own), as a CDN's image does: the
    /// cache rules are judged on a response every loader may reuse without asking, whether or
    /// not it honours HTTP freshness (the HTTP rules have checks of their own).
    @discardableResult
    public func route(_ name: String, _ image: ConformanceImage, faults: Faults? = nil,
                      maxPixelSize: Int? = nil) -> ConformanceSource {
        var faults = faults ?? Faults()
        if !faults.headers.keys.contains(where: { $0.lowercased() == "cache-control" }) {
            faults.headers["Cache-Control"] = Self.cacheableForADay
        }
        return route(name, Route(body: image.bytes, contentType: "image/png", faults: faults), maxPixelSize: maxPixelSize)
    }

    /// What `route(_:_:faults:maxPixelSize:)` sends by default.
    public static let cacheableForADay = "max-age=86400"

    /// Serves `route` (its body, content type and faults exactly as given: no default
    /// `Cache-Control`) at `name` under this check's prefix, records it as a step, and returns its
    /// source.
    @discardableResult
    public func route(_ name: String, _ route: Route, maxPixelSize: Int? = nil) -> ConformanceSource {
        let path = prefix + "/" + name
        server.setRoute(path, route)
        let first = route.initialFaults.map { Self.describe($0).isEmpty ? " (none)" : Self.describe($0) }
        step("server route \(path): \(route.body.count) bytes" + Self.describe(route.faults ?? Faults())
             + (first.isEmpty ? "" : "; first requests' faults:" + first.joined(separator: ",")))
        for gate in ([route.faults] + route.initialFaults).compactMap({ $0?.gate }) { watch(gate, path) }
        return ConformanceSource(url: server.url(for: path), maxPixelSize: maxPixelSize)
    }

    /// Transport requests the server received for `source`.
    public func requests(_ source: ConformanceSource) -> Int { server.counters.requests(for: source.url.path) }

    /// Body bytes the server sent for `source`, read once every request for it was answered in
    /// full (5 s at most). The server counts a write when it completes on its event loop, which
    /// can be after the loader already holds every byte; read at once, a busy machine's count
    /// would miss the end of a body and the next reading would call it re-sent.
    public func bodyBytesSentOnceAnswered(_ source: ConformanceSource) async -> Int {
        let path = source.url.path
        _ = try? await server.counters.waitUntil(timeout: .seconds(5)) {
            $0.responsesCompleted(for: path) >= $0.requests(for: path)
        }
        return server.counters.bodyBytesSent(for: path)
    }

    /// A model of `loader` for `source`, with a recorder attached. Every call on the model is
    /// recorded as a step (a loader from `loader()` already makes recording models).
    public func model(_ loader: any LoaderUnderTest, _ source: ConformanceSource?) -> (any ModelUnderTest, PhaseRecorder) {
        var model = loader.makeModel(source: source)
        if !(model is RecordingModel) {
            let label = "model \(stepLog.nextModelNumber())"
            step("\(label) created for \(source.map(\.description) ?? "no source") → \(model.phase)")
            model = RecordingModel(model, label: label, log: stepLog)
        }
        let recorder = PhaseRecorder(model)
        if let recording = model as? RecordingModel { observed.append((recording.reads, recorder)) }
        return (model, recorder)
    }

    /// After the check: the first model whose observer (attached by `model(_:_:)`) lost or
    /// delayed a phase the model showed after a call, described with the model's name; nil when
    /// every observer kept up. The runner fails a passing check with it (ORDER-2 named) and adds
    /// it to a failing one, whose failure it may explain.
    func observerViolation() async -> String? {
        for (reads, recorder) in observed {
            if let violation = await observerViolation(reads, recorder) { return "observer of \(reads.label): \(violation)" }
        }
        return nil
    }

    /// How the steps name `model` ("model 3"), for evidence that names the same model; "a model"
    /// for one not made through `model(_:_:)` or a loader from `loader()`.
    public func name(_ model: any ModelUnderTest) -> String { (model as? RecordingModel)?.label ?? "a model" }

    /// Gives a broken loader the chance to publish what it must not (see `settleWindow`).
    public func settle() async {
        step("settle window (\(settleWindow)) waited")
        try? await Task.sleep(for: settleWindow)
    }

    /// Records an action of the check that the wrappers cannot see (they record every call on
    /// a loader or model from `loader()` and `model(_:_:)`, routes and gate openings).
    public func step(_ action: String) { stepLog.record(action) }

    /// Adds a line to the evidence.
    public func note(_ line: String) { notes.append(line) }

    /// Fails the check with `reason` (plus the evidence so far) unless `condition` holds.
    /// `symptom` (default nil) names what was observed in a few words, the same words for the same
    /// observation in any check, so the report can group rules failing with it (``CheckResult/symptom``).
    public func expect(_ condition: Bool, _ reason: @autoclosure () -> String, symptom: String? = nil) throws {
        if !condition { throw CheckFailed(reason: reason(), symptom: symptom) }
    }

    /// Marks a passing check as partial: it passed by what it could see, and `reason` says what it
    /// could not (e.g. a probe the adapter does not provide). The result stays a pass, shown as
    /// `pass (partial)`, its evidence starting with `partial: reason` (``CheckResult/partial``).
    public func partial(_ reason: String) { partialReason = reason }

    /// Waits for a terminal phase, failing the check if none comes, with what the observer saw
    /// instead (nothing after the previous terminal phase, stuck in loading, back to empty).
    public func expectTerminal(_ recorder: PhaseRecorder, count: Int = 1, _ what: String) async throws {
        let arrived = await recorder.waitForTerminal(count: count)
        guard !arrived else { return }
        let stall = Diagnosis.noTerminal(recorder.phases, wanted: count)
        throw CheckFailed(reason: "\(what): no terminal phase within 10 s: \(stall.hint); phases \(recorder.transcript)",
                          symptom: stall.symptom)
    }

    /// Ends the check as not applicable.
    public func notApplicable(_ reason: String) throws -> Never { throw CheckNotApplicable(reason: reason) }

    var evidence: String { notes.joined(separator: "; ") }

    /// The steps so far, in order.
    var steps: [String] { stepLog.steps }

    /// Starts the steps of one replay of a model-based check afresh (loaders and models numbered
    /// from 1 again), so a failure shows only the replay it reports.
    func beginTrial() { stepLog.reset() }

    /// Puts back the steps of an earlier replay (the shortest failing one) for the report.
    func restoreSteps(_ steps: [String]) { stepLog.reset(to: steps) }

    /// Records the gate's openings as steps, once per gate however many routes share it.
    private func watch(_ gate: Gate, _ path: String) {
        guard watchedGates[ObjectIdentifier(gate)] == nil else { return }
        watchedGates[ObjectIdentifier(gate)] = path
        gate.onOpen { [stepLog] in stepLog.record("gate of \(path) opened") }
    }

    /// The context's settings that differ from their defaults, as a step states them.
    private static func describe(_ context: LoaderContext) -> String {
        var parts: [String] = []
        if context.maxRetries != 0 { parts.append("maxRetries \(context.maxRetries)") }
        if context.retryDelay != .zero { parts.append("retryDelay \(context.retryDelay)") }
        if let limit = context.memoryCostLimit { parts.append("memoryCostLimit \(limit)") }
        if let limit = context.memoryEntryCostLimit { parts.append("memoryEntryCostLimit \(limit)") }
        if let limit = context.diskSizeLimit { parts.append("diskSizeLimit \(limit)") }
        if let limit = context.maxConcurrentFetches { parts.append("maxConcurrentFetches \(limit)") }
        if let strategy = context.fetchStrategy { parts.append("fetchStrategy \(strategy.rawValue)") }
        if let interval = context.previewInterval { parts.append("previewInterval \(interval)") }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }

    /// The faults a route injects, as a step states them.
    private static func describe(_ faults: Faults) -> String {
        var parts: [String] = []
        if let status = faults.status { parts.append("status \(status)") }
        if faults.gate != nil { parts.append(faults.stallAfterBytes == nil ? "head held by a gate" : "body held by a gate") }
        if let bytes = faults.stallAfterBytes { parts.append("stalls after \(bytes) bytes") }
        if let bytes = faults.closeAfterBytes { parts.append("closes after \(bytes) bytes") }
        if let rate = faults.bytesPerSecond { parts.append("\(rate) bytes/s") }
        if let latency = faults.latencyBeforeHead { parts.append("head after \(latency)") }
        if faults.chunked { parts.append("chunked") }
        if let type = faults.contentTypeOverride { parts.append("Content-Type \(type)") }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }
}
