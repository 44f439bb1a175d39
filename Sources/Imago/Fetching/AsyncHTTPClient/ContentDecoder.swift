import CImagoCodecs
import Foundation
import NIOCore

/// Undoes a gzip or deflate Content-Encoding the server sent although the transport asked for
/// `identity`, chunk by chunk as the wire bytes arrive, with zlib (`imago_inflate_*` in the C
/// shim). Decoded bytes go out in pieces of at most `pieceSize`, each delivered before decoding
/// on, so even a body built to inflate a thousandfold holds one piece at a time.
///
/// Why not NIO's `NIOHTTPResponseDecompressor` in an `EmbeddedChannel`, as before: an embedded
/// channel may only be used on the thread that created it, and an async fetch resumes on any
/// thread of the pool (NIO printed "API misuse" for every such call, and will trap in a later
/// version). AsyncHTTPClient's own decompression would hide the wire bytes, which truncation and
/// progress are judged on (rule HTTP-3).
final class ContentDecoder {
    /// The encodings undone; anything else fails the fetch rather than passing off encoded
    /// bytes as the image.
    enum Encoding: String {
        case gzip, deflate

        /// nil for no encoding (no header, or only `identity`).
        init?(_ values: [String]) throws(FetchError) {
            let codings = values.flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                .filter { !$0.isEmpty && $0 != "identity" }
            switch codings {
            case []: return nil
            case ["gzip"], ["x-gzip"]: self = .gzip
            case ["deflate"]: self = .deflate
            default: throw .transport("unsupported Content-Encoding \(codings.joined(separator: ", "))")
            }
        }
    }

    /// The largest decoded piece handed on at once (64 KiB).
    static let pieceSize = 64 << 10

    private let encoding: Encoding
    private let limit: Int
    private let gauge: InFlightGauge
    private let stream: OpaquePointer
    private var decoded = 0
    private var sawInput = false
    private var ended = false

    /// A decoder whose decoded output may total at most `limit` bytes (beyond: `.tooLarge`);
    /// each decoded piece counts in `gauge` until delivered.
    init(_ encoding: Encoding, limit: Int, gauge: InFlightGauge) throws(FetchError) {
        guard let stream = imago_inflate_create() else { throw .transport("undoing Content-Encoding: out of memory") }
        self.encoding = encoding
        self.limit = limit
        self.gauge = gauge
        self.stream = stream
    }

    deinit { imago_inflate_destroy(stream) }

    /// Decodes `chunk`, handing each decoded piece to `deliver` before decoding on. Further gzip
    /// members are decoded in turn; other bytes after the end of the stream are ignored.
    func decode(_ chunk: ByteBuffer, _ deliver: (ByteBuffer) async throws(FetchError) -> Void) async throws(FetchError) {
        var input = chunk
        sawInput = sawInput || input.readableBytes > 0
        while input.readableBytes > 0 {
            var piece = ByteBuffer()
            piece.reserveCapacity(Self.pieceSize)
            var status = IMAGO_INFLATE_MORE
            var consumed = 0
            _ = input.withUnsafeReadableBytes { compressed in
                piece.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.pieceSize) { output in
                    var produced = 0
                    status = imago_inflate_step(stream, compressed.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                compressed.count, &consumed,
                                                output.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                min(output.count, Self.pieceSize), &produced)
                    return produced
                }
            }
            input.moveReaderIndex(forwardBy: consumed)
            ended = status == IMAGO_INFLATE_END
            switch status {
            case IMAGO_INFLATE_END: break
            case IMAGO_INFLATE_CORRUPT: throw .transport("undoing Content-Encoding \(encoding.rawValue): corrupt data")
            case IMAGO_INFLATE_NO_MEMORY: throw .transport("undoing Content-Encoding \(encoding.rawValue): out of memory")
            default: break
            }
            try await hand(piece, deliver)
            if consumed == 0 && piece.readableBytes == 0 { break }   // nothing more from this input
        }
    }

    /// The end of the wire body: fails if the compressed stream stopped short of its end (an
    /// empty body is left to the caller, which reports it as empty).
    func finish(_ deliver: (ByteBuffer) async throws(FetchError) -> Void) async throws(FetchError) {
        if sawInput && !ended {
            throw .transport("undoing Content-Encoding \(encoding.rawValue): the compressed stream ended early")
        }
    }

    private func hand(_ piece: ByteBuffer, _ deliver: (ByteBuffer) async throws(FetchError) -> Void) async throws(FetchError) {
        guard piece.readableBytes > 0 else { return }
        decoded += piece.readableBytes
        guard decoded <= limit else { throw .tooLarge(limit: limit) }
        gauge.add(piece.readableBytes)
        defer { gauge.remove(piece.readableBytes) }
        try await deliver(piece)
    }
}
