import NIOCore
import NIOPosix

/// A TCP proxy on 127.0.0.1 that adds latency, and optionally a bandwidth cap, between its
/// clients and one upstream: how the tests and the bench make a loopback server look like
/// one across a real network (`netem` is not available on the machines they run on).
///
/// Each accepted connection gets its own connection to the upstream. Bytes are held for the
/// configured one-way delay of their direction (and paced at the configured rate), released
/// by timers on the connection's event loop, in the order they arrived. A half-close or a
/// close travels the same way, after the bytes before it. A sender is no longer read while
/// its direction holds ``Configuration/maxQueuedBytesPerDirection`` or its receiver is not
/// taking bytes, so a slow consumer slows the producer rather than filling memory.
///
/// ```swift
/// let server = try await TestServer.start()
/// let proxy = try await DelayProxy.start(
///     upstream: .init(port: server.port), configuration: .init(roundTripTime: .milliseconds(50)))
/// // connect to 127.0.0.1:proxy.port: every request and response crosses a 50 ms RTT link
/// try await proxy.counters.waitUntil { $0.openConnections == 0 }
/// try await proxy.stop()
/// ```
public final class DelayProxy: Sendable {
    /// Where every accepted connection is forwarded.
    public let upstream: Upstream
    /// The link the proxy simulates.
    public let configuration: Configuration
    /// The address the proxy listens on: always `"127.0.0.1"`.
    public let host: String
    /// The port the proxy listens on (ephemeral, chosen by the kernel).
    public let port: Int
    /// Connections, forwarded bytes and backpressure so far, readable and awaitable.
    public let counters: DelayProxyCounters
    private let channels: ProxyChannels
    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel

    private init(upstream: Upstream, configuration: Configuration, host: String, port: Int,
                 counters: DelayProxyCounters, channels: ProxyChannels, group: MultiThreadedEventLoopGroup,
                 serverChannel: any Channel) {
        self.upstream = upstream
        self.configuration = configuration
        self.host = host
        self.port = port
        self.counters = counters
        self.channels = channels
        self.group = group
        self.serverChannel = serverChannel
    }

    /// Starts listening on 127.0.0.1 at an ephemeral port, forwarding every connection to
    /// `upstream` over the link `configuration` describes (default: no delay, no cap).
    ///
    /// The upstream is connected per accepted connection, not here: one that refuses shows
    /// as a client connection closed at once (and in ``DelayProxyCounterSnapshot/upstreamConnectFailures``).
    /// Throws ``TestServerError/invalidConfiguration(_:)`` for a negative delay or a rate or
    /// bound that is not positive.
    public static func start(upstream: Upstream, configuration: Configuration = Configuration()) async throws
        -> DelayProxy
    {
        try configuration.validate()
        let counters = DelayProxyCounters()
        let channels = ProxyChannels()
        // One thread: every connection's two channels share it, and loopback needs no more.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let host = "127.0.0.1"
        do {
            let serverChannel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .childChannelOption(.maxMessagesPerRead, value: 1)
                .childChannelOption(.recvAllocator, value: readAllocator)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        guard channels.register(channel) else { throw ChannelError.ioOnClosedChannel }
                        counters.connectionAccepted()
                        let connection = ProxiedConnection(
                            configuration: configuration, eventLoop: channel.eventLoop, counters: counters)
                        try channel.pipeline.syncOperations.addHandler(
                            ProxySideHandler(connection: connection, side: .client))
                        connectUpstream(
                            NIOLoopBound(connection, eventLoop: channel.eventLoop), upstream: upstream,
                            eventLoop: channel.eventLoop, channels: channels)
                    }
                }
                .bind(host: host, port: 0).get()
            guard let port = serverChannel.localAddress?.port else {
                try? await serverChannel.close()
                throw TestServerError.invalidConfiguration("the delay proxy's socket has no port")
            }
            return DelayProxy(
                upstream: upstream, configuration: configuration, host: host, port: port, counters: counters,
                channels: channels, group: group, serverChannel: serverChannel)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Stops accepting, closes every client and upstream connection (bytes still delayed are
    /// dropped) and shuts the proxy's event loop down. Calling it again does nothing.
    public func stop() async throws {
        guard let open = channels.beginStopping() else { return }
        try? await serverChannel.close()
        for channel in open {
            try? await channel.close()
        }
        try await group.shutdownGracefully()
    }

    /// Reads of at most 64 KiB, one per read event (with `maxMessagesPerRead` 1): the most a
    /// direction can exceed its bound by.
    private static let readAllocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 65_536)

    /// Opens the upstream connection of one accepted client on the client's event loop, so
    /// both channels of a proxied connection share one thread and need no locks.
    private static func connectUpstream(
        _ connection: NIOLoopBound<ProxiedConnection>, upstream: Upstream, eventLoop: any EventLoop,
        channels: ProxyChannels
    ) {
        ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelOption(.maxMessagesPerRead, value: 1)
            .channelOption(.recvAllocator, value: readAllocator)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard channels.register(channel) else { throw ChannelError.ioOnClosedChannel }
                    try channel.pipeline.syncOperations.addHandler(
                        ProxySideHandler(connection: connection.value, side: .upstream))
                }
            }
            .connect(host: upstream.host, port: upstream.port)
            .assumeIsolated()
            .whenFailure { _ in connection.value.upstreamFailed() }
    }
}
