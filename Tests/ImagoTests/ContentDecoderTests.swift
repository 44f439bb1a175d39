@testable import Imago
import NIOCore
import XCTest

/// The zlib-based decoder of a Content-Encoding on its own: any chunking gives the same bytes,
/// and a corrupt or unfinished stream is a transport error, never bytes passed off as the body.
final class ContentDecoderTests: XCTestCase {
    private let body: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 5) }

    private final class Collector {
        var output: [UInt8] = [], largest = 0
    }

    private func decode(_ wire: [UInt8], _ encoding: ContentDecoder.Encoding, chunk: Int,
                        limit: Int = 1 << 30) async throws(FetchError) -> (bytes: [UInt8], largestPiece: Int) {
        let decoder = try ContentDecoder(encoding, limit: limit, gauge: InFlightGauge())
        let collector = Collector()
        let collect: (ByteBuffer) async throws(FetchError) -> Void = { piece in
            collector.largest = max(collector.largest, piece.readableBytes)
            collector.output += piece.readableBytesView
        }
        var offset = 0
        while offset < wire.count {
            let end = min(offset + chunk, wire.count)
            try await decoder.decode(ByteBuffer(bytes: wire[offset..<end]), collect)
            offset = end
        }
        try await decoder.finish(collect)
        return (collector.output, collector.largest)
    }

    /// The error decoding `wire` ends with (nil: it succeeded).
    private func failure(_ wire: [UInt8], _ encoding: ContentDecoder.Encoding, chunk: Int,
                         limit: Int = 1 << 30) async -> FetchError? {
        do throws(FetchError) {
            _ = try await decode(wire, encoding, chunk: chunk, limit: limit)
            return nil
        } catch {
            return error
        }
    }

    func testAnyChunkingGivesTheSameBytesInBoundedPieces() async throws {
        for (encoding, name) in [(ContentDecoder.Encoding.gzip, "gzip"), (.deflate, "deflate")] {
            let wire = try await Compressor.compress(body, name)
            for chunk in [1, 7, 4096, wire.count] {
                let decoded = try await decode(wire, encoding, chunk: chunk)
                XCTAssertEqual(decoded.bytes, body, "\(name) in chunks of \(chunk)")
                XCTAssertLessThanOrEqual(decoded.largestPiece, ContentDecoder.pieceSize)
            }
        }
    }

    func testCorruptAndUnfinishedStreamsAreTransportErrors() async throws {
        var wire = try await Compressor.compress(body, "gzip")
        let cut = await failure(Array(wire.prefix(wire.count / 2)), .gzip, chunk: 1000)
        XCTAssertEqual(cut, .transport("undoing Content-Encoding gzip: the compressed stream ended early"))
        wire[wire.count / 2] ^= 0xFF
        wire[wire.count / 2 + 1] ^= 0xFF
        let corrupt = await failure(wire, .gzip, chunk: 1000)
        guard case .transport(let message)? = corrupt else { return XCTFail("\(String(describing: corrupt))") }
        XCTAssertTrue(message.hasPrefix("undoing Content-Encoding gzip:"), message)
        let plain = await failure(Array("plain text, not gzip".utf8), .gzip, chunk: 5)
        XCTAssertEqual(plain, .transport("undoing Content-Encoding gzip: corrupt data"))
    }

    func testAnEmptyBodyIsLeftToTheCallerAndTrailingBytesAreIgnored() async throws {
        let empty = try await decode([], .gzip, chunk: 1).bytes
        XCTAssertEqual(empty, [])
        let wire = try await Compressor.compress(body, "gzip")
        let trailed = try await decode(wire + Array("trailer".utf8), .gzip, chunk: 333).bytes
        XCTAssertEqual(trailed, body)
    }

    func testEveryGzipMemberIsDecodedInTurn() async throws {
        let first = Array(body.prefix(100_000)), second = Array(body.suffix(50_000))
        let wire = try await Compressor.compress(first, "gzip") + Compressor.compress(second, "gzip")
        for chunk in [1, 4096, wire.count] {
            let members = try await decode(wire, .gzip, chunk: chunk).bytes
            XCTAssertEqual(members, first + second, "chunks of \(chunk)")
        }
        let cut = try await Compressor.compress(first, "gzip") + Compressor.compress(second, "gzip").prefix(20)
        let cutFailure = await failure(Array(cut), .gzip, chunk: 512)
        XCTAssertEqual(cutFailure, .transport("undoing Content-Encoding gzip: the compressed stream ended early"))
    }

    func testTheLimitStopsABombWithoutInflatingItAll() async throws {
        let wire = try await Compressor.compress([UInt8](repeating: 0, count: 16 << 20), "gzip")
        let bomb = await failure(wire, .gzip, chunk: wire.count, limit: 1 << 20)
        XCTAssertEqual(bomb, .tooLarge(limit: 1 << 20))
    }
}
