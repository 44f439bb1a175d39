import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPCompression

/// Undoes a gzip or deflate Content-Encoding the server sent although the transport asked for
/// `identity`, chunk by chunk as the wire bytes arrive.
///
/// Why NIO's `NIOHTTPResponseDecompressor` in an `EmbeddedChannel`: it is the zlib code
/// AsyncHTTPClient itself uses, with its decompression limit, but AsyncHTTPClient's built-in
/// use of it would hide the wire bytes (truncation and progress are judged on those, rule
/// HTTP-3). The embedded channel runs it synchronously on the calling task, nothing else.
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

    /// Compressed bytes fed to zlib at once. Small, so that one step's output stays small even
    /// for a body built to inflate a thousandfold (2 KiB in, at most about 2 MiB out).
    private static let step = 2048

    private let encoding: Encoding
    private let limit: Int
    private let gauge: InFlightGauge
    private let channel: EmbeddedChannel

    /// A decoder whose decoded output may total at most `limit` bytes (beyond: `.tooLarge`);
    /// decoded bytes count in `gauge` until delivered.
    init(_ encoding: Encoding, limit: Int, gauge: InFlightGauge) throws(FetchError) {
        self.encoding = encoding
        self.limit = limit
        self.gauge = gauge
        channel = EmbeddedChannel(handler: NIOHTTPResponseDecompressor(limit: .size(limit)))
        var headers = HTTPHeaders()
        headers.add(name: "Content-Encoding", value: encoding.rawValue)
        try feed(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)), { _ throws(FetchError) in })
    }

    deinit { _ = try? channel.finish() }

    /// Decodes `chunk`, handing each decoded piece to `deliver` before decoding on.
    func decode(_ chunk: ByteBuffer, _ deliver: (ByteBuffer) throws(FetchError) -> Void) throws(FetchError) {
        var rest = chunk
        while rest.readableBytes > 0, let slice = rest.readSlice(length: min(Self.step, rest.readableBytes)) {
            try feed(.body(slice), deliver)
        }
    }

    /// The end of the wire body: fails if the compressed stream stopped short of its end.
    func finish(_ deliver: (ByteBuffer) throws(FetchError) -> Void) throws(FetchError) {
        try feed(.end(nil), deliver)
    }

    private func feed(_ part: HTTPClientResponsePart, _ deliver: (ByteBuffer) throws(FetchError) -> Void) throws(FetchError) {
        do {
            try channel.writeInbound(part)
        } catch NIOHTTPDecompression.DecompressionError.limit {
            throw .tooLarge(limit: limit)
        } catch {
            throw .transport("undoing Content-Encoding \(encoding.rawValue): \(error)")
        }
        // Everything one step decoded is held at once (in the channel's inbound buffer); it is
        // counted as held until each piece is delivered.
        var pieces: [ByteBuffer] = []
        while true {
            let output: HTTPClientResponsePart?
            do { output = try channel.readInbound(as: HTTPClientResponsePart.self) } catch {
                throw .transport("undoing Content-Encoding \(encoding.rawValue): \(error)")
            }
            guard let output else { break }
            if case .body(let decoded) = output, decoded.readableBytes > 0 { pieces.append(decoded) }
        }
        var held = pieces.reduce(0) { $0 + $1.readableBytes }
        gauge.add(held)
        defer { gauge.remove(held) }
        for index in pieces.indices {
            let piece = pieces[index]
            pieces[index] = ByteBuffer()   // delivered: no longer held here
            try deliver(piece)
            gauge.remove(piece.readableBytes)
            held -= piece.readableBytes
        }
    }
}
