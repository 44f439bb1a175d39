import NIOCore

/// What the request handlers of one TCP connection tell its ``ConnectionCountingHandler``:
/// one handler over HTTP/1, one per stream over HTTP/2. Lives on the connection's event loop.
final class ConnectionActivity {
    /// Requests on the connection whose response has not been written to the end.
    var responsesInProgress = 0
    /// The server closed the connection itself (a close mid-body over HTTP/1, `Connection:
    /// close`): its closing is not a client's cancel.
    var closedByServer = false
}

/// Counts a connection opened and closed, and whether the client closed it while a response
/// was unfinished (``CounterSnapshot/connectionsClosedByClient``). First in every connection's
/// pipeline, before TLS: it sees the TCP connection whatever protocol runs on it, and sees it
/// close before HTTP/2 closes the streams on it.
final class ConnectionCountingHandler: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private let core: ServerCore
    private let activity: ConnectionActivity

    init(core: ServerCore, activity: ConnectionActivity) {
        self.core = core
        self.activity = activity
    }

    func channelActive(context: ChannelHandlerContext) {
        core.counters.connectionOpened()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Judged before the request handlers hear of it (they end their responses then), counted
        // after: a test that awaits the count finds their writers stopped and gate holds gone.
        let byClient = activity.responsesInProgress > 0 && !activity.closedByServer && !core.isShuttingDown
        context.fireChannelInactive()
        core.counters.connectionClosed(byClientMidResponse: byClient)
    }
}
