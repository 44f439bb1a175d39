import NIOCore
import NIOHTTP1
import NIOHTTP2

/// The HTTP/2 half of ``ConnectionPipeline``: a connection that negotiated `h2` gets NIO's
/// HTTP/2 handler, and each stream the HTTP/1 codec and request handler of its own.
extension ConnectionPipeline {
    /// NIO's HTTP/2 handler with a stream initializer that gives each stream the HTTP/1 codec
    /// and a request handler of its own, sharing the connection's activity.
    static func addHTTP2(to channel: any Channel, core: ServerCore, activity: ConnectionActivity) throws {
        let bound = NIOLoopBound(activity, eventLoop: channel.eventLoop)
        // A stream's write buffer holds about four body pieces, as an HTTP/1 connection's does
        // (TestServer's writeBufferWaterMark); beyond that the stream is not writable and the
        // writer waits, so the client's flow-control window paces each body.
        var streams = NIOHTTP2Handler.StreamConfiguration()
        streams.outboundBufferSizeHighWatermark = 4 * core.writeChunkSize
        streams.outboundBufferSizeLowWatermark = core.writeChunkSize
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: .init(), streamConfiguration: streams
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                try stream.pipeline.syncOperations.addHandler(
                    HTTPConnectionHandler(core: core, activity: bound.value, scope: .http2Stream))
            }
        }
    }
}

/// How an HTTP/2 stream's channel learns that the client reset it.
enum HTTP2StreamReset {
    /// NIOHTTP2 reports a received RST_STREAM to the stream's channel as `StreamClosed`.
    static func isReset(_ error: any Error) -> Bool {
        error is NIOHTTP2Errors.StreamClosed
    }
}
