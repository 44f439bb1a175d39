import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing
@testable import Imago

extension TimedSuites {
    /// What only the AsyncHTTPClient transport has, beyond the transport contract
    /// (`TransportContractTests` runs that for every transport): a total timeout, the
    /// decoded-size limit, refusal of unknown encodings, `Accept-Encoding: identity`. Each test
    /// gets a fresh transport and a contract (server, downloads directory) of its own. In
    /// `TimedSuites`: the total timeout is timed.
    @Suite struct AsyncHTTPClientTransportTests {}
}

extension TimedSuites.AsyncHTTPClientTransportTests {
    /// Runs `body` with a fresh transport and its contract, ending both however `body` ends.
    private func withContract(_ body: (AsyncHTTPClientTransport, TransportContract) async throws -> Void) async throws {
        let transport = AsyncHTTPClientTransport()
        do {
            try await TransportContract.with(transport) { try await body(transport, $0) }
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    @Test func totalTimeoutEndsALiveButEndlessTransfer() async throws {
        try await withContract { _, contract in
            let limited = AsyncHTTPClientTransport(configuration: .init(totalTimeout: .milliseconds(300)))
            contract.server.setRoute("/drip", Route(body: contract.body, faults: Faults(bytesPerSecond: 50_000)))
            do {
                _ = try await limited.fetch(contract.request("/drip", .file, idleTimeout: .seconds(10))) { _ in }
                Issue.record("a 6-second transfer finished within 300 ms")
            } catch {
                #expect((error as? FetchError) == .timedOut)
            }
            // Ended by the limit, not by the body: the server had not finished sending it. (A
            // wall-clock bound failed under ThreadSanitizer beside a busy core: 4.5 s.)
            #expect(contract.server.counters.responsesCompleted(for: "/drip") == 0)
            #expect(contract.server.counters.bodyBytesSent(for: "/drip") < contract.body.count)
            try #expect(contract.leftovers() == [])
            try await limited.shutdown()
        }
    }

    /// The size limit applies to the decoded bytes: a small compressed body that inflates past
    /// the limit fails (without inflating it all), and an incompressible one whose wire length
    /// is over the limit but whose decoded size is not passes.
    @Test func theSizeLimitAppliesToDecodedBytes() async throws {
        try await withContract { transport, contract in
            let zeros = [UInt8](repeating: 0, count: 64 << 20)
            let bomb = try await Compressor.compress(zeros, "gzip")
            contract.server.setRoute("/bomb", Route(body: bomb, faults: Faults(headers: ["Content-Encoding": "gzip"])))
            for strategy in FetchStrategy.storing {
                transport.inFlight.resetPeak()
                await contract.expectFailure(contract.request("/bomb", strategy, maxSize: 1 << 20)) { $0 == .tooLarge(limit: 1 << 20) }
                #expect(transport.inFlight.peak < 8 << 20, "\(strategy): decoded far past the limit in one go")
            }
            var random = SystemRandomNumberGenerator()
            let noise = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &random) }
            let wire = try await Compressor.compress(noise, "gzip")
            #expect(wire.count > noise.count, "gzip grows incompressible bytes")
            contract.server.setRoute("/noise", Route(body: wire, faults: Faults(headers: ["Content-Encoding": "gzip"])))
            let result = try await transport.fetch(contract.request("/noise", maxSize: noise.count)) { _ in }
            try #expect(contract.bytes(result) == noise)
            await contract.expectFailure(contract.request("/noise", maxSize: noise.count - 1)) { $0 == .tooLarge(limit: noise.count - 1) }
            try #expect(contract.leftovers() == [])
        }
    }

    @Test func anUnsupportedEncodingFailsRatherThanPassingOffEncodedBytes() async throws {
        try await withContract { _, contract in
            contract.server.setRoute("/br", Route(body: contract.body, faults: Faults(headers: ["Content-Encoding": "br"])))
            await contract.expectFailure(contract.request("/br", .file)) { $0 == .transport("unsupported Content-Encoding br") }
            try #expect(contract.leftovers() == [])
        }
    }

    @Test func identityIsAskedForUnlessTheCallerAsksOtherwise() async throws {
        try await withContract { _, contract in
            let plain = try RequestBuilder.make(contract.request("/a"))
            #expect(plain.headers["Accept-Encoding"] == ["identity"])
            let asked = try RequestBuilder.make(contract.request("/a", headers: ["accept-encoding": "gzip"]))
            #expect(asked.headers["Accept-Encoding"] == ["gzip"])
        }
    }
}

/// Compresses test bodies with the system's tools (gzip; python3's zlib for HTTP's deflate,
/// which is the zlib format), so the decoder is checked against an independent encoder.
enum Compressor {
    static func compress(_ bytes: [UInt8], _ encoding: String) async throws -> [UInt8] {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("imago-compress-\(UUID())")
        try Data(bytes).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let (tool, arguments): (String, [String]) = encoding == "gzip"
            ? ("/bin/gzip", ["-c", "-n", input.path])
            : ("/usr/bin/python3", ["-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(open(sys.argv[1], 'rb').read()))", input.path])
        guard FileManager.default.isExecutableFile(atPath: tool) else { try TestSkip.skip("no \(tool) to make a \(encoding) body") }
        let run = try await ChildProcessRunner.run(URL(fileURLWithPath: tool), arguments, timeout: .seconds(120))
        guard run.status == 0, !run.output.isEmpty else { try TestSkip.skip("\(tool) failed to compress: \(run.stderr)") }
        return [UInt8](run.output)
    }
}
