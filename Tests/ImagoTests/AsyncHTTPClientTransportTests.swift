import Foundation
import ImagoTestServer
import NIOSSL
import Synchronization
import XCTest
@testable import Imago

/// The AsyncHTTPClient transport against the whole transport contract (URLSessionTransportTests
/// says which checks URLSession cannot pass: IPv6 literals, exact sub-second idle timeouts,
/// wire-byte accounting of encoded bodies), plus what only this transport has: a total timeout,
/// the decoded-size limit, refusal of unknown encodings, `Accept-Encoding: identity`.
final class AsyncHTTPClientTransportTests: XCTestCase {
    private var transport: AsyncHTTPClientTransport!
    private var contract: TransportContract!

    override func setUp() async throws {
        transport = AsyncHTTPClientTransport()
        contract = try await TransportContract.start(transport)
    }

    override func tearDown() async throws {
        try await contract.stop()
        try await transport.shutdown()
        transport = nil
    }

    // MARK: The contract

    func testBothStrategiesDeliverTheBodyWithMonotoneProgress() async throws {
        try await contract.bothStrategiesDeliverTheBodyWithMonotoneProgress()
    }
    func testUnknownLengthIsReportedAsUnknown() async throws { try await contract.unknownLengthIsReportedAsUnknown() }
    func testStreamingHandsTheBodyToItsConsumer() async throws { try await contract.streamingHandsTheBodyToItsConsumer() }
    func testStreamingJudgesTheHeadBeforeAnyPiece() async throws { try await contract.streamingJudgesTheHeadBeforeAnyPiece() }
    func testStreamingStopsWhenTheConsumerRefuses() async throws { try await contract.streamingStopsWhenTheConsumerRefuses() }
    func testStreamingKeepsTheLimitTruncationAndNeedsAConsumer() async throws {
        try await contract.streamingKeepsTheLimitTruncationAndNeedsAConsumer()
    }
    func testNonSuccessStatusFailsAtTheHead() async throws { try await contract.nonSuccessStatusFailsAtTheHead() }
    func testShortBodyIsATruncationNeverASuccess() async throws { try await contract.shortBodyIsATruncationNeverASuccess() }
    func testConditionalRequestGets304() async throws { try await contract.conditionalRequestGets304() }
    func testOversizeBodyFailsEarly() async throws { try await contract.oversizeBodyFailsEarly() }
    func testABodyRefusedAtTheHeadIsNotReadOn() async throws { try await contract.aBodyRefusedAtTheHeadIsNotReadOn() }
    func testStallBeyondTheIdleTimeoutTimesOut() async throws { try await contract.stallBeyondTheIdleTimeoutTimesOut() }
    func testASlowButLiveBodyOutlastsTheIdleTimeout() async throws {
        try await contract.aSlowButLiveBodyOutlastsTheIdleTimeout(idleTimeout: .milliseconds(250))
    }
    func testCancelMidBodyEndsPromptlyClosesTheConnectionAndLeavesNoFile() async throws {
        try await contract.cancelMidBodyEndsPromptlyClosesTheConnectionAndLeavesNoFile()
    }
    func testCancelBeforeTheHeadEndsPromptly() async throws { try await contract.cancelBeforeTheHeadEndsPromptly() }
    func testRedirectsAreFollowedAndReported() async throws { try await contract.redirectsAreFollowedAndReported() }
    func testARedirectLoopFailsAsTooManyRedirects() async throws { try await contract.aRedirectLoopFailsAsTooManyRedirects() }
    func testUnusableURLsFailWithoutARequest() async throws { try await contract.unusableURLsFailWithoutARequest() }
    func testARefusedConnectionIsATransportError() async throws { try await contract.aRefusedConnectionIsATransportError() }

    // MARK: AsyncHTTPClient only

    func testIPv6LiteralURL() async throws { try await contract.ipv6LiteralURL() }
    func testSubSecondIdleTimeoutIsExact() async throws { try await contract.subSecondIdleTimeoutIsExact() }

    func testTotalTimeoutEndsALiveButEndlessTransfer() async throws {
        let limited = AsyncHTTPClientTransport(configuration: .init(totalTimeout: .milliseconds(300)))
        contract.server.setRoute("/drip", Route(body: contract.body, faults: Faults(bytesPerSecond: 50_000)))
        let started = ContinuousClock.now
        do {
            _ = try await limited.fetch(contract.request("/drip", .file, idleTimeout: .seconds(10))) { _ in }
            XCTFail("a 6-second transfer finished within 300 ms")
        } catch {
            XCTAssertEqual(error, .timedOut)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
        XCTAssertEqual(try contract.leftovers(), [])
        try await limited.shutdown()
    }

    func testGzipAndDeflateBodiesAreDecodedAndJudgedOnWireBytes() async throws {
        try await contract.gzipAndDeflateBodiesAreDecodedAndJudgedOnWireBytes()
    }
    func testAnEncodedBodyCutShortIsATruncationOfItsWireBytes() async throws {
        try await contract.anEncodedBodyCutShortIsATruncationOfItsWireBytes()
    }

    /// The size limit applies to the decoded bytes: a small compressed body that inflates past
    /// the limit fails (without inflating it all), and an incompressible one whose wire length
    /// is over the limit but whose decoded size is not passes.
    func testTheSizeLimitAppliesToDecodedBytes() async throws {
        let zeros = [UInt8](repeating: 0, count: 64 << 20)
        let bomb = try Compressor.compress(zeros, "gzip")
        contract.server.setRoute("/bomb", Route(body: bomb, faults: Faults(headers: ["Content-Encoding": "gzip"])))
        for strategy in FetchStrategy.storing {
            transport.inFlight.resetPeak()
            await contract.expectFailure(contract.request("/bomb", strategy, maxSize: 1 << 20)) { $0 == .tooLarge(limit: 1 << 20) }
            XCTAssertLessThan(transport.inFlight.peak, 8 << 20, "\(strategy): decoded far past the limit in one go")
        }
        var random = SystemRandomNumberGenerator()
        let noise = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let wire = try Compressor.compress(noise, "gzip")
        XCTAssertGreaterThan(wire.count, noise.count, "gzip grows incompressible bytes")
        contract.server.setRoute("/noise", Route(body: wire, faults: Faults(headers: ["Content-Encoding": "gzip"])))
        let result = try await transport.fetch(contract.request("/noise", maxSize: noise.count)) { _ in }
        XCTAssertEqual(try contract.bytes(result), noise)
        await contract.expectFailure(contract.request("/noise", maxSize: noise.count - 1)) { $0 == .tooLarge(limit: noise.count - 1) }
        XCTAssertEqual(try contract.leftovers(), [])
    }

    func testAnUnsupportedEncodingFailsRatherThanPassingOffEncodedBytes() async throws {
        contract.server.setRoute("/br", Route(body: contract.body, faults: Faults(headers: ["Content-Encoding": "br"])))
        await contract.expectFailure(contract.request("/br", .file)) { $0 == .transport("unsupported Content-Encoding br") }
        XCTAssertEqual(try contract.leftovers(), [])
    }

    func testIdentityIsAskedForUnlessTheCallerAsksOtherwise() throws {
        let plain = try RequestBuilder.make(contract.request("/a"))
        XCTAssertEqual(plain.headers["Accept-Encoding"], ["identity"])
        let asked = try RequestBuilder.make(contract.request("/a", headers: ["accept-encoding": "gzip"]))
        XCTAssertEqual(asked.headers["Accept-Encoding"], ["gzip"])
    }
}

/// Compresses test bodies with the system's tools (gzip; python3's zlib for HTTP's deflate,
/// which is the zlib format), so the decoder is checked against an independent encoder.
enum Compressor {
    static func compress(_ bytes: [UInt8], _ encoding: String) throws -> [UInt8] {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("imago-compress-\(UUID())")
        try Data(bytes).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let (tool, arguments): (String, [String]) = encoding == "gzip"
            ? ("/bin/gzip", ["-c", "-n", input.path])
            : ("/usr/bin/python3", ["-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(open(sys.argv[1], 'rb').read()))", input.path])
        guard FileManager.default.isExecutableFile(atPath: tool) else { throw XCTSkip("no \(tool) to make a \(encoding) body") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, !data.isEmpty else { throw XCTSkip("\(tool) failed to compress") }
        return [UInt8](data)
    }
}
