import Foundation
import ImagoCorpus
import ImagoTestSupport
#if canImport(Glibc)
import Glibc
#endif
import XCTest
@testable import Imago

/// DISK-1 against real crashes: a child process writing, replacing, reading and removing
/// entries is killed with SIGKILL at seeded random moments, round after round on one directory.
/// After every kill, what another process finds there must be whole or absent, never partial.
final class DiskCacheKillTests: DiskCacheTestCase {
    static let keys = (0..<40).map { "kill-key-\($0)" }
    static let sizeLimit = 400_000
    /// `IMAGO_CRASH_ROUNDS` overrides it (`make soak` runs more).
    static let rounds = ProcessInfo.processInfo.environment["IMAGO_CRASH_ROUNDS"].flatMap(Int.init) ?? 24

    func testSIGKILLAtRandomMomentsNeverLeavesAServablePartialEntry() throws {
        var random = SeededGenerator(seed: 0x6_C0FFEE)
        var leftovers = 0, killedMidRun = 0
        for round in 0..<Self.rounds {
            let killAfter = Int.random(in: 1...120, using: &random)
            // The kill lands this long after the child reported its last operation: a seeded
            // spread over the next operation's phases (payload, temporary file, publish, evict).
            let killDelay = useconds_t.random(in: 0..<3000, using: &random)
            let child = try ChildTestProcess(
                test: "ImagoTests.DiskCacheKillTests/testKilledWriterChild",
                environment: ["IMAGO_KILL_CHILD_DIR": cacheDirectory.path,
                              "IMAGO_KILL_CHILD_SEED": "\(round)"])
            try child.run()
            let seen = child.waitForProgressLines(killAfter)
            XCTAssertGreaterThanOrEqual(seen, killAfter, "round \(round): the child stopped early")
            usleep(killDelay)
            kill(child.process.processIdentifier, SIGKILL)
            let (_, reason, report) = child.finish()
            XCTAssertEqual(reason, .uncaughtSignal, "round \(round): \(report)")
            if reason == .uncaughtSignal { killedMidRun += 1 }

            // Before anyone sweeps: every payload its sidecar vouches for is complete.
            leftovers += try assertEveryVouchedPayloadIsComplete(round: round)
            // A new instance (in another process than the writer) cleans up and serves only whole entries.
            let cache = try makeCache(sizeLimit: Self.sizeLimit, grace: .zero, realClock: true)
            XCTAssertEqual(try listing().filter { $0.hasPrefix(".tmp-") }, [], "round \(round): leftovers swept")
            for key in Self.keys {
                guard let entry = cache.entry(forKey: key) else { continue }
                XCTAssertEqual(CrashPayload.key(ofComplete: try entry.data()), key, "round \(round): \(key)")
            }
            XCTAssertLessThanOrEqual(try directorySize(), Self.sizeLimit, "round \(round)")
            XCTAssertEqual(cache.totalSize, try directorySize(), "round \(round)")
            let probe = CrashPayload.bytes(key: "parent-probe", write: "round-\(round)")
            XCTAssertTrue(try cache.store(probe, forKey: "parent-probe"))
            XCTAssertEqual(try cache.entry(forKey: "parent-probe")?.data(), probe, "round \(round): still works")
        }
        XCTAssertEqual(killedMidRun, Self.rounds)
        print("DiskCacheKillTests: \(Self.rounds) rounds killed with SIGKILL, \(leftovers) crash leftovers swept")
    }

    /// DISK-2 across processes: this process and a child write, replace, read and remove the
    /// same few keys at once; every read on either side is one complete write for its key.
    func testTwoProcessesReadingAndWritingTheSameKeysSeeOnlyCompleteEntries() throws {
        let child = try ChildTestProcess(test: "ImagoTests.DiskCacheKillTests/testMixedReaderWriterChild",
                                         environment: ["IMAGO_MIXED_CHILD_DIR": cacheDirectory.path])
        let cache = try makeCache(sizeLimit: Self.sizeLimit, realClock: true)
        try child.run()
        let reads = try Self.readAndWrite(cache, writer: "parent", operations: 400)
        let (status, _, report) = child.finish()
        XCTAssertEqual(status, 0, report)
        XCTAssertTrue(report.contains("Executed 1 test, with 0 failures"), "the child ran and verified: \(report)")
        XCTAssertGreaterThan(reads, 0)
        XCTAssertEqual(try listing().filter { $0.hasPrefix(".tmp-") }, [])
        XCTAssertEqual(cache.totalSize, try directorySize())
        for key in Self.keys.prefix(6) {
            guard let entry = cache.entry(forKey: key) else { continue }
            XCTAssertEqual(CrashPayload.key(ofComplete: try entry.data()), key)
        }
    }

    func testMixedReaderWriterChild() throws {
        guard let path = ProcessInfo.processInfo.environment["IMAGO_MIXED_CHILD_DIR"] else { return }
        let cache = try DiskCache(directory: URL(fileURLWithPath: path), configuration: .init(sizeLimit: Self.sizeLimit))
        XCTAssertGreaterThan(try Self.readAndWrite(cache, writer: "child", operations: 400), 0)
    }

    /// Stores and reads six shared keys in a seeded order, asserting every read; returns the
    /// number of hits verified.
    static func readAndWrite(_ cache: DiskCache, writer: String, operations: Int) throws -> Int {
        var random = SeededGenerator(seed: CrashPayload.fnv1a(writer))
        var hits = 0
        for operation in 0..<operations {
            let key = keys[Int.random(in: 0..<6, using: &random)]
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                try cache.store(CrashPayload.bytes(key: key, write: "\(writer)-\(operation)"), forKey: key)
            case 4..<9:
                // An entry replaced or evicted between lookup and read throws: that is a miss.
                guard let entry = cache.entry(forKey: key), let data = try? entry.data() else { continue }
                XCTAssertEqual(CrashPayload.key(ofComplete: data), key, "\(writer) read \(key)")
                hits += 1
            default:
                try cache.removeEntry(forKey: key)
            }
        }
        return hits
    }

    /// Checks the directory as a process that never sweeps would see it: any payload whose
    /// sidecar names its inode and size must hold one complete write for that sidecar's key.
    /// Returns the number of temporary files (crash leftovers) present.
    private func assertEveryVouchedPayloadIsComplete(round: Int) throws -> Int {
        var temporaries = 0
        for name in try listing() {
            switch DiskCacheNaming.classify(name) {
            case .temporary:
                temporaries += 1
            case .sidecar(let hash):
                let path = cacheDirectory.appendingPathComponent(hash).path
                guard let sidecarData = FileManager.default.contents(atPath: path + ".meta"),
                      let sidecar = DiskCacheSidecar.decode(sidecarData),
                      let status = try DiskFileIO.status(path), sidecar.describes(status)
                else { continue }   // not vouched for: never served (the lookup checks the same)
                let payload = try Data(contentsOf: URL(fileURLWithPath: path))
                XCTAssertEqual(CrashPayload.key(ofComplete: payload), sidecar.key, "round \(round): \(name)")
                XCTAssertEqual(DiskCacheNaming.hash(forKey: sidecar.key), hash, "round \(round): \(name)")
            case .payload, .other:
                continue
            }
        }
        return temporaries
    }

    /// The child side: stores (bytes or a moved file), replaces, reads and removes entries
    /// until it is killed, one progress line per operation. Does nothing in a normal run.
    func testKilledWriterChild() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment["IMAGO_KILL_CHILD_DIR"], let seed = environment["IMAGO_KILL_CHILD_SEED"] else { return }
        // No fsync: SIGKILL loses nothing the kernel has accepted, and fsync would only slow
        // the writer down (what it guards against, power loss, cannot be simulated here).
        let cache = try DiskCache(directory: URL(fileURLWithPath: path),
                                  configuration: .init(sizeLimit: Self.sizeLimit, synchronizesWrites: false))
        let staging = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("staging-\(seed)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        var random = SeededGenerator(seed: UInt64(seed)! &* 7919)
        for write in 0... {
            let key = Self.keys[Int.random(in: 0..<Self.keys.count, using: &random)]
            let bytes = CrashPayload.bytes(key: key, write: "child-\(seed)-\(write)")
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                try cache.store(bytes, forKey: key)
            case 5..<7:
                // The download-to-file path: a finished file renamed into the cache.
                let file = staging.appendingPathComponent("download-\(write)")
                try bytes.write(to: file)
                try cache.store(fileAt: file, forKey: key)
            case 7..<9:
                if let entry = cache.entry(forKey: key), let data = try? entry.data(),
                   CrashPayload.key(ofComplete: data) != key {
                    ChildTestProcess.reportProgress("served a partial or foreign entry for \(key)")
                    exit(3)
                }
            default:
                try cache.removeEntry(forKey: key)
            }
            ChildTestProcess.reportProgress()
        }
    }
}
