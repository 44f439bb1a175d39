import Foundation
import ImagoTestServer
import ImagoTestSupport
import XCTest

/// The shared cache tier's test base: several `imago load` processes, each with its own disk
/// cache, behind one real nginx caching reverse proxy (`proxy_cache`) in front of a loopback
/// origin that counts its requests and its conditional requests. Processes alternate
/// `--strategy data` and `--strategy file`, so every round covers both. Everything a test
/// starts is stopped in `tearDown`, and its temporary directory removed.
///
/// Where nginx is not installed (`make deps` installs it) every test skips, printing why.
class ProxyTierTestCase: XCTestCase {
    /// Processes per round.
    static let processCount = 4
    /// The proxy's `stub_status` location, read to know every process is inside nginx.
    static let statusPath = "/proxy-status"
    static let image = try! [UInt8](Data(contentsOf: DecodeCommandTests.root.appendingPathComponent("Corpus/png/rgb-8.png")))

    private(set) var origin: TestServer!
    private(set) var proxy: NginxServer!
    private(set) var scratch: URL!

    override func setUp() async throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imago-proxytier-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        origin = try await TestServer.start()
    }

    override func tearDown() async throws {
        await proxy?.stop()
        try? await origin?.shutdown()
        try? FileManager.default.removeItem(at: scratch)
    }

    /// nginx caching everything in front of the origin; skips the test, saying why, where
    /// nginx cannot be run.
    func startProxy(lock: Bool = true, revalidate: Bool = true) async throws {
        proxy = try await NginxServer.startOrSkip(.init(locations: [
            .prefix("/", .cachingProxy(to: .url(origin.baseURL), lock: lock, revalidate: revalidate)),
            .exact(Self.statusPath, .stubStatus),
        ]))
    }

    /// One round: `processCount` processes load `path` through the proxy at once, with the
    /// cache directories of earlier rounds. `whileRunning` runs before their exits are awaited.
    func round(_ path: String, _ label: String,
               whileRunning: () async throws -> Void = {}) async throws -> (outcomes: [LoadProcess.Outcome], pixels: Data) {
        var processes: [LoadProcess] = []
        do {
            for index in 0..<Self.processCount {
                processes.append(try LoadProcess(index: index, url: proxy.url(for: path), scratch: scratch,
                                                 extraArguments: ["--strategy", index.isMultiple(of: 2) ? "data" : "file",
                                                                  "--no-memory-cache"]))
            }
        } catch {
            for process in processes { await process.end() }   // none left writing into scratch
            throw error
        }
        do {
            try await whileRunning()
        } catch {
            // Leave no process behind: end them and wait for their exits before failing.
            for process in processes { process.terminate() }
            _ = await LoadProcess.outcomes(processes)
            throw error
        }
        let outcomes = await LoadProcess.outcomes(processes)
        for (index, outcome) in outcomes.enumerated() {
            XCTAssertEqual(outcome.status, 0, "\(label): process \(index): \(outcome.stderr)\n\(outcome.stdout)")
        }
        let pixels = processes.map(\.pixels)
        XCTAssertFalse(pixels[0].isEmpty, "\(label): process 0 wrote no pixels")
        XCTAssertEqual(Set(pixels).count, 1, "\(label): every process decoded the same pixels")
        let sizes = outcomes.map { "\($0.success?["width"] ?? "?")x\($0.success?["height"] ?? "?")" }
        XCTAssertEqual(Set(sizes).count, 1, "\(label): sizes \(sizes)")
        return (outcomes, pixels[0])
    }

    /// The proxy's log lines for `path` once there are `count`.
    func proxyLog(_ path: String, count: Int) async throws -> [NginxAccessLogEntry] {
        try await proxy.waitForAccessLog("\(count) proxy requests for \(path)") { entries in
            entries.filter { $0.path == path }.count >= count
        }.filter { $0.path == path }
    }

    /// Polls `condition` every 5 ms until it holds; throws ``TimedOut`` after 30 s (processes start
    /// in well under a second here, but several at once under a sanitizer can take seconds).
    func waitUntil(_ what: String, _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// A condition a proxy tier test waited on did not hold in time (what it waited for).
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting until \(what)" }
}
