import XCTest
@testable import ImagoBench

/// bench-check's large-decode verdict: stream must decode, data and file may be refused with a
/// typed error, and nothing may be OOM-killed or pass the limit.
final class LargeDecodeGateTests: XCTestCase {
    private func outcome(exit: Int32? = 0, signal: Int32? = nil, oomKills: Int = 0, peak: Int? = 160 << 20,
                         errors: String = "") -> CgroupOutcome {
        CgroupOutcome(version: .v1, limitBytes: LargeDecodeGate.limitBytes, exitStatus: exit, signal: signal, timedOut: false,
                      oomKills: oomKills, underOOM: false, peakBytes: peak, limitHits: 0, highEvents: nil,
                      standardOutput: Data(), standardError: Data(errors.utf8))
    }

    private func runs(stream: CgroupOutcome, data: CgroupOutcome, file: CgroupOutcome) -> [LargeDecodeGate.Run] {
        [LargeDecodeGate.Run(strategy: "stream", mustDecode: true, outcome: .success(stream)),
         LargeDecodeGate.Run(strategy: "data", mustDecode: false, outcome: .success(data)),
         LargeDecodeGate.Run(strategy: "file", mustDecode: false, outcome: .success(file))]
    }

    private let refused = "error: http://127.0.0.1/large.png: decoding(exceedsMemoryLimit): decoding needs 247345600 bytes"

    func testStreamDecodingAndTypedRefusalsPass() {
        let verdict = LargeDecodeGate.verdict(runs(stream: outcome(), data: outcome(exit: 1, peak: 70 << 20, errors: refused),
                                                   file: outcome(peak: 191 << 20)))
        XCTAssertEqual(verdict.status, .pass, verdict.lines.joined(separator: "\n"))
        XCTAssertEqual(verdict.exitStatus, 0)
        XCTAssertTrue(verdict.lines.contains { $0.contains("data outcome") && $0.contains("refused (exceedsMemoryLimit)") })
    }

    func testAnOOMKillFails() {
        let killed = outcome(exit: nil, signal: SIGKILL, oomKills: 1, peak: LargeDecodeGate.limitBytes)
        let verdict = LargeDecodeGate.verdict(runs(stream: outcome(), data: killed, file: outcome()))
        XCTAssertEqual(verdict.status, .fail)
        XCTAssertEqual(verdict.exitStatus, 2)
        XCTAssertTrue(verdict.conclusion.contains("data OOM-killed"), verdict.conclusion)
    }

    func testAStreamThatIsRefusedOrAnotherErrorFails() {
        XCTAssertEqual(LargeDecodeGate.verdict(runs(stream: outcome(exit: 1, errors: refused), data: outcome(), file: outcome())).status, .fail)
        XCTAssertEqual(LargeDecodeGate.verdict(runs(stream: outcome(), data: outcome(exit: 1, errors: "error: corrupt png"),
                                                    file: outcome())).status, .fail)
        XCTAssertEqual(LargeDecodeGate.verdict(runs(stream: outcome(), data: outcome(), file: outcome(peak: (192 << 20) + 4096))).status, .fail)
        XCTAssertEqual(LargeDecodeGate.verdict(runs(stream: outcome(peak: 181 << 20), data: outcome(), file: outcome())).status, .fail,
                       "the streamed decode must keep the sixteenth")
    }

    func testNoCgroupIsASkipNotAFailure() {
        let verdict = LargeDecodeGate.verdict([LargeDecodeGate.Run(strategy: "stream", mustDecode: true,
                                                                   outcome: .failure(CgroupUnavailable("no memory controller")))])
        XCTAssertEqual(verdict.status, .skipped)
        XCTAssertEqual(verdict.exitStatus, 0)
        XCTAssertTrue(verdict.conclusion.contains("no memory controller"))
    }
}
