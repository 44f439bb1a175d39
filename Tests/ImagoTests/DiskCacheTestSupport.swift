import Foundation
import Synchronization
import XCTest
@testable import Imago

/// A manually advanced clock for deterministic TTL and LRU tests.
final class TestClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Mutex(start) }
    func now() -> Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    /// A pipeline clock whose dates are this clock's (HTTP freshness moves when it advances);
    /// back-offs wait on `sleeper` (default: real time).
    func pipelineClock(sleepingOn sleeper: some Clock<Duration> = ContinuousClock()) -> PipelineClock {
        PipelineClock(now: { self.now() }, sleepingOn: sleeper)
    }
}

/// A fresh directory per test, removed afterwards.
class DiskCacheTestCase: XCTestCase {
    var root: URL!
    var clock: TestClock!
    /// False in a child process, whose root is its parent's.
    private var ownsRoot = true

    override func setUpWithError() throws {
        // A child process of the kill tests works in its parent's directory, which the parent
        // removes: a child is SIGKILLed and never reaches tearDown, so a root of its own
        // would be left in the temporary directory (24 per run were).
        let environment = ProcessInfo.processInfo.environment
        if let shared = environment["IMAGO_KILL_CHILD_DIR"] ?? environment["IMAGO_MIXED_CHILD_DIR"] {
            root = URL(fileURLWithPath: shared).deletingLastPathComponent()
            ownsRoot = false
        } else {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-disk-\(UUID().uuidString)")
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        clock = TestClock()
    }

    override func tearDownWithError() throws {
        if ownsRoot { try? FileManager.default.removeItem(at: root) }
    }

    var cacheDirectory: URL { root.appendingPathComponent("cache") }

    /// A cache on `cacheDirectory` with the test clock, or the real one when it must agree with
    /// another process's.
    func makeCache(sizeLimit: Int = 1 << 20, grace: Duration = .seconds(600),
                   realClock: Bool = false) throws -> DiskCache {
        let clock: TestClock = self.clock
        var now: @Sendable () -> Date = { clock.now() }
        if realClock { now = { Date() } }
        return try DiskCache(directory: cacheDirectory, configuration: .init(
            sizeLimit: sizeLimit, temporaryFileGracePeriod: grace, now: now))
    }

    /// Names in the cache directory except the lock file, sorted.
    func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path)
            .filter { $0 != ".lock" }.sorted()
    }

    /// Bytes of every payload and sidecar, summed from the directory itself.
    func directorySize() throws -> Int {
        try listing().filter { !$0.hasPrefix(".") }.reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: cacheDirectory.appendingPathComponent(name).path)
            return total + (attributes[.size] as! NSNumber).intValue
        }
    }

    func payloadPath(forKey key: String) -> String {
        cacheDirectory.appendingPathComponent(DiskCacheNaming.hash(forKey: key)).path
    }

    func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }
}
