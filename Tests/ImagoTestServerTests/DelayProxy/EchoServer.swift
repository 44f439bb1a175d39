import NIOCore
import NIOPosix
import Synchronization

/// A loopback TCP server that writes back every byte it reads and closes once its client
/// half-closes and every echo is out: the simplest upstream whose output is known exactly.
final class EchoServer: Sendable {
    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    static func start() async throws -> EchoServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(EchoHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return EchoServer(port: channel.localAddress!.port!, channel: channel)
    }

    /// Stops listening (connections already accepted end with their clients).
    func stop() async {
        try? await channel.close()
    }
}

private final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private var lastWrite: EventLoopFuture<Void>?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastWrite = context.write(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .some(ChannelEvent.inputClosed) = event as? ChannelEvent else { return }
        context.flush()
        // A close drops unwritten data: wait for the last echo.
        if let lastWrite {
            lastWrite.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        } else {
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// A raw TCP connection driven by a test: write bytes, half-close, read until the peer closes.
struct RawTCPConnection {
    let inbound: NIOAsyncChannelInboundStream<ByteBuffer>
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// Connects to 127.0.0.1:`port`, runs `body`, then closes the connection.
    static func with<Result: Sendable>(
        port: Int, _ body: (RawTCPConnection) async throws -> Result
    ) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(RawTCPConnection(inbound: inbound, outbound: outbound))
        }
    }

    /// Writes `bytes` in pieces of the sizes `pieces` cycles through.
    func write(_ bytes: [UInt8], pieces: [Int] = [65_536]) async throws {
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + pieces[index % pieces.count])
            try await outbound.write(ByteBuffer(bytes: bytes[offset..<end]))
            offset = end
            index += 1
        }
    }

    /// Reads everything until the peer closes.
    func readToEnd() async throws -> [UInt8] {
        var received: [UInt8] = []
        for try await buffer in inbound {
            received.append(contentsOf: buffer.readableBytesView)
        }
        return received
    }
}

extension NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator {
    /// Reads until `count` bytes have arrived, or the peer closed first.
    mutating func read(count: Int) async throws -> [UInt8] {
        var received: [UInt8] = []
        while received.count < count, let buffer = try await next() {
            received.append(contentsOf: buffer.readableBytesView)
        }
        return received
    }
}
