import NIOCore

/// One client connection and its upstream connection: the two ``DelayLine``s between them,
/// which side may be read, and how a close on one side reaches the other.
///
/// Everything here runs on the connection's event loop (the upstream channel is created on
/// the client channel's loop), so the state needs no lock. The handlers of both channels
/// hold this object; it holds their contexts until the channels close.
final class ProxiedConnection: DelayLineDelegate {
    /// One end of the proxied connection.
    enum Side {
        case client, upstream
        var other: Side { self == .client ? .upstream : .client }
    }

    private struct SideState {
        var context: ChannelHandlerContext?
        /// A read the channel asked for while its outgoing line was full.
        var readWithheld = false
        /// The channel closed, or (upstream) could not be opened.
        var isGone = false
    }

    private let counters: DelayProxyCounters
    private let toUpstream: DelayLine
    private let toClient: DelayLine
    private var client = SideState()
    private var upstream = SideState()
    private var hasEnded = false

    init(configuration: DelayProxy.Configuration, eventLoop: any EventLoop, counters: DelayProxyCounters) {
        self.counters = counters
        let accepted = NIODeadline.now()
        let setup = configuration.delaysConnectionSetup ? TimeAmount(configuration.roundTripTime) : .zero
        toUpstream = DelayLine(
            towardUpstream: true,
            schedule: LinkSchedule(
                delay: TimeAmount(configuration.clientToServerDelay),
                bytesPerSecond: configuration.clientToServerBytesPerSecond, linkFreeAt: accepted + setup),
            maxQueuedBytes: configuration.maxQueuedBytesPerDirection, eventLoop: eventLoop, counters: counters)
        toClient = DelayLine(
            towardUpstream: false,
            schedule: LinkSchedule(
                delay: TimeAmount(configuration.serverToClientDelay),
                bytesPerSecond: configuration.serverToClientBytesPerSecond),
            maxQueuedBytes: configuration.maxQueuedBytesPerDirection, eventLoop: eventLoop, counters: counters)
        toUpstream.delegate = self
        toClient.delegate = self
    }

    private subscript(side: Side) -> SideState {
        get { side == .client ? client : upstream }
        set { if side == .client { client = newValue } else { upstream = newValue } }
    }

    private func line(from side: Side) -> DelayLine { side == .client ? toUpstream : toClient }
    private func line(to side: Side) -> DelayLine { line(from: side.other) }

    // MARK: Events from the channel handlers.

    func active(_ side: Side, context: ChannelHandlerContext) {
        guard !self[side].isGone else { return }
        self[side].context = context
        line(to: side).attach(context)
    }

    func received(_ buffer: ByteBuffer, from side: Side) {
        line(from: side).enqueue(buffer, arrivedAt: .now())
    }

    /// The channel of `side` wants to read: allowed unless its line is full or the other
    /// side is not taking bytes, in which case the read waits for ``resumeReading(_:)``.
    func mayRead(from side: Side) -> Bool {
        let line = line(from: side)
        guard line.isFull || !line.receiverIsWritable else { return true }
        if !self[side].readWithheld {
            self[side].readWithheld = true
            counters.readPaused()
        }
        return false
    }

    /// The sender half-closed: its end follows its bytes.
    func inputEnded(_ side: Side) {
        line(from: side).enqueueEnd(.halfClose, arrivedAt: .now())
    }

    func writabilityChanged(_ side: Side) {
        resumeReading(side.other)
    }

    func closed(_ side: Side) {
        guard !self[side].isGone else { return }
        self[side].isGone = true
        self[side].context = nil
        line(to: side).receiverGone()
        let outgoing = line(from: side)
        if outgoing.ending == nil {
            outgoing.enqueueEnd(.fullClose, arrivedAt: .now())
        } else if !outgoing.isFinished {
            outgoing.escalateToFullClose()
        } else {
            // Its half-close already went out; now nothing can come back to it either.
            outgoing.closeReceiverAfterEnd()
        }
        endIfBothGone()
    }

    /// The upstream could not be connected: nothing is forwarded, and the client is closed
    /// one server-to-client delay later (as a refusal would travel back). Through the line,
    /// not at once: the connect may fail before the client's channel is even active.
    func upstreamFailed() {
        counters.upstreamConnectFailed()
        upstream.isGone = true
        upstream.context = nil
        toUpstream.receiverGone()
        toClient.enqueueEnd(.fullClose, arrivedAt: .now())
        endIfBothGone()
    }

    // MARK: DelayLineDelegate

    func delayLineShrank(_ line: DelayLine) {
        resumeReading(line === toUpstream ? .client : .upstream)
    }

    // MARK: Private

    private func resumeReading(_ side: Side) {
        guard self[side].readWithheld, let context = self[side].context else { return }
        let line = line(from: side)
        guard !line.isFull, line.receiverIsWritable else { return }
        self[side].readWithheld = false
        context.read()
    }

    private func endIfBothGone() {
        guard client.isGone, upstream.isGone, !hasEnded else { return }
        hasEnded = true
        counters.connectionEnded()
    }
}
