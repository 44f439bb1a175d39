import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPCompression

extension GzipFile {
    /// A gzip stream of `bytes`, really compressed (zlib at its default level), as a server's
    /// `gzip on` sends it: for compressible content much smaller than the content, the case
    /// where a client that stops at the encoded Content-Length counted in decoded bytes cuts the
    /// body short. (`stored(_:)` gives the opposite case: a stream a little larger.)
    ///
    /// Why NIOHTTPCompression's response compressor in an `EmbeddedChannel` (created and used on
    /// this one thread, as an embedded channel must be): the server needs no zlib binding of its
    /// own, and it is an encoder independent of Imago's decoder (`imago_inflate_*`). The
    /// compressor only compresses for a request that accepts gzip, hence the request head
    /// written first.
    public static func compressed(_ bytes: [UInt8]) throws -> [UInt8] {
        let channel = EmbeddedChannel(handler: HTTPResponseCompressor())
        defer { _ = try? channel.finish() }
        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Accept-Encoding": "gzip"])
        try channel.writeInbound(HTTPServerRequestPart.head(request))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes))))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        var encoded: [UInt8] = []
        var encoding: String?
        while let part = try channel.readOutbound(as: HTTPServerResponsePart.self) {
            switch part {
            case .head(let head): encoding = head.headers.first(name: "Content-Encoding")
            case .body(.byteBuffer(let buffer)): encoded += buffer.readableBytesView
            case .body(.fileRegion), .end: break
            }
        }
        guard encoding == "gzip" else { throw GzipCompressionError.notCompressed(encoding) }
        return encoded
    }
}

/// The compressor declined to gzip (it never should for a request accepting gzip).
public enum GzipCompressionError: Error, Sendable {
    /// The compressor's answer had this Content-Encoding (nil: none) instead of gzip.
    case notCompressed(String?)
}
