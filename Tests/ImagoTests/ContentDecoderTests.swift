@testable import Imago
import NIOCore
import XCTest

/// The zlib-based decoder of a Content-Encoding on its own: any chunking gives the same bytes,
/// and a corrupt or unfinished stream is a transport error, never bytes passed off as the body.
final class ContentDecoderTests: XCTestCase {
    private let body: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 5) }

    private func decode(_ wire: [UInt8], _ encoding: ContentDecoder.Encoding, chunk: Int,
                        limit: Int = 1 << 30) throws(FetchError) -> (bytes: [UInt8], largestPiece: Int) {
        let decoder = try ContentDecoder(encoding, limit: limit, gauge: InFlightGauge())
        var output: [UInt8] = [], largest = 0
        let collect: (ByteBuffer) throws(FetchError) -> Void = { piece in
            largest = max(largest, piece.readableBytes)
            output += piece.readableBytesView
        }
        var offset = 0
        while offset < wire.count {
            let end = min(offset + chunk, wire.count)
            try decoder.decode(ByteBuffer(bytes: wire[offset..<end]), collect)
            offset = end
        }
        try decoder.finish(collect)
        return (output, largest)
    }

    func testAnyChunkingGivesTheSameBytesInBoundedPieces() throws {
        for (encoding, name) in [(ContentDecoder.Encoding.gzip, "gzip"), (.deflate, "deflate")] {
            let wire = try Compressor.compress(body, name)
            for chunk in [1, 7, 4096, wire.count] {
                let decoded = try decode(wire, encoding, chunk: chunk)
                XCTAssertEqual(decoded.bytes, body, "\(name) in chunks of \(chunk)")
                XCTAssertLessThanOrEqual(decoded.largestPiece, ContentDecoder.pieceSize)
            }
        }
    }

    func testCorruptAndUnfinishedStreamsAreTransportErrors() throws {
        var wire = try Compressor.compress(body, "gzip")
        XCTAssertThrowsError(try decode(Array(wire.prefix(wire.count / 2)), .gzip, chunk: 1000)) { error in
            XCTAssertEqual(error as? FetchError, .transport("undoing Content-Encoding gzip: the compressed stream ended early"))
        }
        wire[wire.count / 2] ^= 0xFF
        wire[wire.count / 2 + 1] ^= 0xFF
        XCTAssertThrowsError(try decode(wire, .gzip, chunk: 1000)) { error in
            guard case .transport(let message) = error as? FetchError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("undoing Content-Encoding gzip:"), message)
        }
        XCTAssertThrowsError(try decode(Array("plain text, not gzip".utf8), .gzip, chunk: 5)) { error in
            XCTAssertEqual(error as? FetchError, .transport("undoing Content-Encoding gzip: corrupt data"))
        }
    }

    func testAnEmptyBodyIsLeftToTheCallerAndTrailingBytesAreIgnored() throws {
        XCTAssertEqual(try decode([], .gzip, chunk: 1).bytes, [])
        let wire = try Compressor.compress(body, "gzip")
        XCTAssertEqual(try decode(wire + Array("trailer".utf8), .gzip, chunk: 333).bytes, body)
    }

    func testEveryGzipMemberIsDecodedInTurn() throws {
        let first = Array(body.prefix(100_000)), second = Array(body.suffix(50_000))
        let wire = try Compressor.compress(first, "gzip") + Compressor.compress(second, "gzip")
        for chunk in [1, 4096, wire.count] {
            XCTAssertEqual(try decode(wire, .gzip, chunk: chunk).bytes, first + second, "chunks of \(chunk)")
        }
        let cut = try Compressor.compress(first, "gzip") + Compressor.compress(second, "gzip").prefix(20)
        XCTAssertThrowsError(try decode(Array(cut), .gzip, chunk: 512)) { error in
            XCTAssertEqual(error as? FetchError, .transport("undoing Content-Encoding gzip: the compressed stream ended early"))
        }
    }

    func testTheLimitStopsABombWithoutInflatingItAll() throws {
        let wire = try Compressor.compress([UInt8](repeating: 0, count: 16 << 20), "gzip")
        XCTAssertThrowsError(try decode(wire, .gzip, chunk: wire.count, limit: 1 << 20)) { error in
            XCTAssertEqual(error as? FetchError, .tooLarge(limit: 1 << 20))
        }
    }
}
