import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

/// Sets up each accepted connection: counting first, then TLS and ALPN if the server has
/// them, then HTTP/1 (one ``HTTPConnectionHandler`` for the connection) or HTTP/2 (one per
/// stream, behind NIO's HTTP/2-to-HTTP/1 codec, so routes, faults, gates and counters serve
/// a stream exactly as they serve an HTTP/1 exchange).
struct ConnectionPipeline: Sendable {
    let core: ServerCore
    /// The TLS context and what ALPN offers; nil for plain HTTP/1.1.
    let tls: (context: NIOSSLContext, protocols: [TestServer.TLS.ApplicationProtocol])?

    /// Configures a new connection's channel (on its event loop, from the child initializer).
    func configure(_ channel: any Channel) -> EventLoopFuture<Void> {
        let core = self.core
        let activity = NIOLoopBound(ConnectionActivity(), eventLoop: channel.eventLoop)
        let added = channel.eventLoop.makeCompletedFuture {
            guard core.register(channel) else { throw ChannelError.ioOnClosedChannel }
            try channel.pipeline.syncOperations.addHandler(ConnectionCountingHandler(core: core, activity: activity.value))
            if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.context)) }
        }
        guard let tls else {
            return added.flatMapThrowing { try Self.addHTTP1(to: channel, core: core, activity: activity.value) }
        }
        let offersHTTP1 = tls.protocols.contains(.http1)
        return added.flatMap {
            channel.configureHTTP2SecureUpgrade(
                h2ChannelConfigurator: { channel in
                    channel.eventLoop.makeCompletedFuture { try Self.addHTTP2(to: channel, core: core, activity: activity.value) }
                },
                http1ChannelConfigurator: { channel in
                    // `http/1.1` chosen, or no protocol negotiated: HTTP/1.1 only if offered.
                    guard offersHTTP1 else { return channel.close() }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(TLSCloseReader())
                        try Self.addHTTP1(to: channel, core: core, activity: activity.value)
                    }
                })
        }
    }

    private static func addHTTP1(to channel: any Channel, core: ServerCore, activity: ConnectionActivity) throws {
        var encoder = HTTPResponseEncoder.Configuration()
        // The planner sets Content-Length / Transfer-Encoding itself: the encoder's own
        // framing would add chunked coding to HEAD answers to chunked resources.
        encoder.automaticallySetFramingHeaders = false
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withEncoderConfiguration: encoder)
        try channel.pipeline.syncOperations.addHandler(HTTPConnectionHandler(core: core, activity: activity, scope: .connection))
    }
}
