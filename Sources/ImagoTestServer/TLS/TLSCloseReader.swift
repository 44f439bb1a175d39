import NIOCore

/// Keeps an HTTP/1.1 connection over TLS reading while a response goes out, so a client's
/// close_notify (its cancel) is seen at once.
///
/// Why: NIO's `HTTPServerPipelineHandler` stops asking for reads while a request is being
/// answered (its backpressure against pipelining). Over plain TCP the kernel still reports a
/// client's close without a read, but over TLS the close is a close_notify record that only a
/// read finds: a cancelled load would go unseen until the client's own TLS close gave up (5 s
/// in NIOSSL). Sits between the TLS handler and the HTTP codec and asks for the next read after
/// each one; requests pipelined meanwhile are still held back by the pipeline handler.
final class TLSCloseReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        context.read()
    }
}
