import NIOCore

/// What a ``DelayLine`` tells the connection it belongs to. Called on the event loop.
protocol DelayLineDelegate: AnyObject {
    /// Bytes left the queue: the sender may be read again if it was paused.
    func delayLineShrank(_ line: DelayLine)
}

/// One direction of one proxied connection: the bytes read from the sender, each held until
/// its release time, then written to the receiver in arrival order.
///
/// Why one queue and one timer rather than a timer per read: release times never decrease
/// (``LinkSchedule``), so the head of the queue is always the next thing due; a single
/// scheduled task on the event loop, re-armed for the new head, releases everything due at
/// once and never lets a later piece overtake an earlier one. Everything here runs on the
/// connection's event loop.
final class DelayLine {
    /// How the stream ends at the receiver: its output shut (the sender half-closed), or
    /// the receiver closed (the sender went away altogether).
    enum Ending { case halfClose, fullClose }

    private enum Item {
        case bytes(ByteBuffer)
        case end
    }

    private struct Entry {
        let item: Item
        let releaseAt: NIODeadline
    }

    /// Where released bytes go: not yet known (the upstream is still connecting), a live
    /// channel, or gone (closed: what is queued is dropped).
    private enum Receiver {
        case pending
        case attached(ChannelHandlerContext)
        case gone
    }

    /// Whether this line carries client bytes to the upstream (for the counters).
    let towardUpstream: Bool
    weak var delegate: (any DelayLineDelegate)?
    private let eventLoop: any EventLoop
    private let counters: DelayProxyCounters
    private let maxQueuedBytes: Int
    private var schedule: LinkSchedule
    private var entries = CircularBuffer<Entry>()
    private var receiver = Receiver.pending
    private var timer: Scheduled<Void>?
    private var lastWrite: EventLoopFuture<Void>?
    /// Bytes read from the sender and not yet written to the receiver.
    private(set) var queuedBytes = 0
    /// How the stream ends, once the sender's end is known.
    private(set) var ending: Ending?
    /// Whether the end was delivered, or the receiver is gone: nothing more passes.
    private(set) var isFinished = false

    init(towardUpstream: Bool, schedule: LinkSchedule, maxQueuedBytes: Int, eventLoop: any EventLoop,
         counters: DelayProxyCounters) {
        self.towardUpstream = towardUpstream
        self.schedule = schedule
        self.maxQueuedBytes = maxQueuedBytes
        self.eventLoop = eventLoop
        self.counters = counters
    }

    /// Whether the line holds its bound: the sender must not be read until it shrinks.
    var isFull: Bool { queuedBytes >= maxQueuedBytes }

    /// Whether the receiver is taking bytes (a receiver still connecting counts as taking them).
    var receiverIsWritable: Bool {
        if case .attached(let context) = receiver { return context.channel.isWritable }
        return true
    }

    /// Queues bytes read from the sender at `arrival`, in slices the link paces.
    func enqueue(_ buffer: ByteBuffer, arrivedAt arrival: NIODeadline) {
        guard ending == nil, !isFinished else { return }
        var buffer = buffer
        while buffer.readableBytes > 0, let slice = buffer.readSlice(length: min(schedule.sliceLength, buffer.readableBytes)) {
            let releaseAt = schedule.release(bytes: slice.readableBytes, arrivedAt: arrival)
            entries.append(Entry(item: .bytes(slice), releaseAt: releaseAt))
            queuedBytes += slice.readableBytes
        }
        counters.queued(queuedBytes)
        armTimer()
    }

    /// Queues the sender's end of stream, delivered after every byte before it.
    func enqueueEnd(_ ending: Ending, arrivedAt arrival: NIODeadline) {
        guard self.ending == nil, !isFinished else { return }
        self.ending = ending
        entries.append(Entry(item: .end, releaseAt: schedule.releaseOfEnd(arrivedAt: arrival)))
        armTimer()
    }

    /// The sender went away after half-closing: the queued end closes the receiver altogether.
    func escalateToFullClose() {
        if ending == .halfClose, !isFinished { ending = .fullClose }
    }

    /// The receiver's channel is ready: what is due goes out now, the rest on time.
    func attach(_ context: ChannelHandlerContext) {
        guard case .pending = receiver else { return }
        receiver = .attached(context)
        releaseDue()
    }

    /// The receiver is gone: drop what is queued (nobody can take it) and stop the timer.
    func receiverGone() {
        receiver = .gone
        timer?.cancel()
        timer = nil
        entries.removeAll()
        queuedBytes = 0
        isFinished = true
    }

    private func armTimer() {
        guard timer == nil, case .attached = receiver, let next = entries.first else { return }
        timer = eventLoop.assumeIsolated().scheduleTask(deadline: next.releaseAt) { [weak self] in
            self?.timer = nil
            self?.releaseDue()
        }
    }

    /// Writes every entry whose release time has come, in order; at the end of stream, shuts
    /// or closes the receiver once the writes before it are out.
    private func releaseDue() {
        guard case .attached(let context) = receiver else { return }
        let now = NIODeadline.now()
        var released = 0
        while let entry = entries.first, entry.releaseAt <= now {
            entries.removeFirst()
            switch entry.item {
            case .bytes(let slice):
                released += slice.readableBytes
                write(slice, to: context)
            case .end:
                if released > 0 { context.flush() }
                deliverEnd(to: context)
                return
            }
        }
        if released > 0 {
            queuedBytes -= released
            context.flush()
            delegate?.delayLineShrank(self)
        }
        armTimer()
    }

    private func write(_ slice: ByteBuffer, to context: ChannelHandlerContext) {
        let count = slice.readableBytes
        let promise = eventLoop.makePromise(of: Void.self)
        let counters = self.counters
        let towardUpstream = self.towardUpstream
        promise.futureResult.whenSuccess { counters.forwarded(count, toUpstream: towardUpstream) }
        context.write(NIOAny(slice), promise: promise)
        lastWrite = promise.futureResult
    }

    private func deliverEnd(to context: ChannelHandlerContext) {
        isFinished = true
        queuedBytes = 0
        // NIO drops unwritten data on a full close, and an output shutdown on a channel whose
        // input is already shut is a full close: either waits for the last write to be out.
        close(context, mode: ending == .fullClose ? .all : .output)
    }

    /// After the end went out as a half-close, the sender went away altogether: close the
    /// receiver too (nothing it sends can be delivered), once the last write is out.
    func closeReceiverAfterEnd() {
        guard isFinished, case .attached(let context) = receiver else { return }
        close(context, mode: .all)
    }

    private func close(_ context: ChannelHandlerContext, mode: CloseMode) {
        if let lastWrite {
            lastWrite.assumeIsolated().whenComplete { _ in context.close(mode: mode, promise: nil) }
        } else {
            context.close(mode: mode, promise: nil)
        }
    }
}
