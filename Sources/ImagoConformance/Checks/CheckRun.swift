import Foundation
import ImagoTestServer

/// What one check works with: the subject, the loopback server (routes under a path prefix of
/// its own), fresh directories, and the evidence it gathers for the report.
@MainActor
public final class CheckRun {
    public let subject: ConformanceSubject
    public let server: TestServer
    public let images: ConformanceImages
    /// How long a check waits to see that nothing more is published (default 150 ms). Only
    /// proofs of absence wait this long; every ordering is decided by gates and counters.
    public let settleWindow: Duration
    /// The context `loader()` uses; a check may adjust it before building loaders.
    public var context: LoaderContext
    private let prefix: String
    private let root: URL
    private var notes: [String] = []
    private var contexts = 0

    init(subject: ConformanceSubject, server: TestServer, images: ConformanceImages, rule: String,
         root: URL, settleWindow: Duration) throws {
        self.subject = subject
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
        let base = root.appendingPathComponent("context-\(contexts)")
        let cache = base.appendingPathComponent("cache")
        let temporary = base.appendingPathComponent("tmp")
        for directory in [cache, temporary] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        return LoaderContext(cacheDirectory: cache, temporaryDirectory: temporary)
    }

    /// A new loader instance for `context` (default: the run's): same context, same disk cache.
    public func loader(_ context: LoaderContext? = nil) throws -> any LoaderUnderTest {
        try subject.makeLoader(context ?? self.context)
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

    @discardableResult
    public func route(_ name: String, _ route: Route, maxPixelSize: Int? = nil) -> ConformanceSource {
        let path = prefix + "/" + name
        server.setRoute(path, route)
        return ConformanceSource(url: server.url(for: path), maxPixelSize: maxPixelSize)
    }

    /// Transport requests the server received for `source`.
    public func requests(_ source: ConformanceSource) -> Int { server.counters.requests(for: source.url.path) }

    /// A model of `loader` for `source`, with a recorder attached.
    public func model(_ loader: any LoaderUnderTest, _ source: ConformanceSource?) -> (any ModelUnderTest, PhaseRecorder) {
        let model = loader.makeModel(source: source)
        return (model, PhaseRecorder(model))
    }

    /// Gives a broken loader the chance to publish what it must not (see `settleWindow`).
    public func settle() async { try? await Task.sleep(for: settleWindow) }

    /// Adds a line to the evidence.
    public func note(_ line: String) { notes.append(line) }

    /// Fails the check with `reason` (plus the evidence so far) unless `condition` holds.
    public func expect(_ condition: Bool, _ reason: @autoclosure () -> String) throws {
        if !condition { throw CheckFailed(reason: reason()) }
    }

    /// Waits for a terminal phase, failing the check if none comes.
    public func expectTerminal(_ recorder: PhaseRecorder, count: Int = 1, _ what: String) async throws {
        let arrived = await recorder.waitForTerminal(count: count)
        try expect(arrived, "\(what): no terminal phase within 10 s; phases \(recorder.transcript)")
    }

    /// Ends the check as not applicable.
    public func notApplicable(_ reason: String) throws -> Never { throw CheckNotApplicable(reason: reason) }

    var evidence: String { notes.joined(separator: "; ") }
}
