import NIOCore

/// The one handler on each of a proxied connection's two channels: hands what the channel
/// reads to the ``ProxiedConnection``, and withholds the channel's reads while the connection
/// says its outgoing direction is full (the backpressure: the kernel's buffers fill and TCP
/// slows the sender down).
final class ProxySideHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let connection: ProxiedConnection
    private let side: ProxiedConnection.Side

    init(connection: ProxiedConnection, side: ProxiedConnection.Side) {
        self.connection = connection
        self.side = side
    }

    func channelActive(context: ChannelHandlerContext) {
        // Not in handlerAdded: an upstream channel gets its handler before it is connected,
        // and released bytes must not be written to it before then.
        connection.active(side, context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection.received(unwrapInboundIn(data), from: side)
    }

    func read(context: ChannelHandlerContext) {
        // Withheld reads are issued again by the connection, on this context.
        if connection.mayRead(from: side) { context.read() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
            connection.inputEnded(side)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        connection.writabilityChanged(side)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.closed(side)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // A channel that never became active (an upstream connect that failed) is never
        // inactive either; removal is the last word on it.
        connection.closed(side)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a failed write: this side is done; its close reaches the other side.
        context.close(promise: nil)
    }
}
