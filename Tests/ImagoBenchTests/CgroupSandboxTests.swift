import Foundation
import ImagoTestSupport
import XCTest
@testable import ImagoBench

/// The sandbox on this machine's real cgroups: a process that needs more memory than its
/// cgroup allows is OOM-killed, the kill is reported, and the cgroup is gone afterwards.
/// Skipped (with the reason) where no memory cgroup can be made.
final class CgroupSandboxTests: XCTestCase {
    private let mib = 1 << 20

    /// Runs a python3 one-liner that allocates (and writes) `steps` × 10 MiB.
    private func allocate(_ steps: Int, in sandbox: MemoryCgroupSandbox, limit: Int) throws -> CgroupOutcome {
        let code = "b = []\nfor _ in range(\(steps)): b.append(b'x' * (10 << 20))\nprint('survived')"
        do {
            let outcome = try sandbox.run("/usr/bin/env", ["python3", "-c", code], limitBytes: limit, timeout: .seconds(120))
            if outcome.exitStatus == 127 { throw XCTSkip("python3 not found") }
            return outcome
        } catch let unavailable as CgroupUnavailable {
            try TestSkip.skip("no memory cgroup: \(unavailable.reason)")
        }
    }

    private func leftovers(_ sandbox: MemoryCgroupSandbox) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sandbox.location.directory)
            .filter { $0.hasPrefix(MemoryCgroupSandbox.namePrefix + "\(getpid())-") }
    }

    func testAllocatingPastTheLimitIsReportedAsAnOOMKillAndTheCgroupIsRemoved() throws {
        let sandbox = try TestMemoryCgroup.sandboxOrSkip()
        let outcome = try allocate(20, in: sandbox, limit: 64 * mib)   // 200 MiB into 64 MiB
        XCTAssertEqual(outcome.end, .signalled(SIGKILL))
        XCTAssertGreaterThanOrEqual(outcome.oomKills, 1)
        XCTAssertTrue(outcome.killedByOOM)
        XCTAssertFalse(String(decoding: outcome.standardOutput, as: UTF8.self).contains("survived"))
        XCTAssertEqual(outcome.limitBytes, 64 * mib)
        if let peak = outcome.peakBytes { XCTAssertLessThanOrEqual(peak, 64 * mib) }
        XCTAssertEqual(try leftovers(sandbox), [])
    }

    func testAProcessWithinTheLimitExitsNormallyAndItsPeakIsCharged() throws {
        let sandbox = try TestMemoryCgroup.sandboxOrSkip()
        let outcome = try allocate(3, in: sandbox, limit: 256 * mib)   // 30 MiB into 256 MiB
        XCTAssertEqual(outcome.exitStatus, 0, String(decoding: outcome.standardError, as: UTF8.self))
        XCTAssertEqual(outcome.oomKills, 0)
        XCTAssertFalse(outcome.killedByOOM)
        XCTAssertTrue(String(decoding: outcome.standardOutput, as: UTF8.self).contains("survived"))
        // The interpreter started inside the cgroup, so all 30 MiB it wrote were charged there.
        XCTAssertGreaterThanOrEqual(outcome.peakBytes ?? 0, 30 * mib)
        XCTAssertEqual(try leftovers(sandbox), [])
    }
}
