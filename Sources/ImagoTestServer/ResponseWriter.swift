import NIOCore
import NIOHTTP1
import NIOPosix

/// Sends one planned response on a connection, injecting its faults.
///
/// Why a state machine on the event loop and not a task that sleeps: latency, pacing,
/// stalls and gates are all "continue later" points; scheduling them on the channel's
/// event loop keeps every step ordered with the socket's own events (writability, close)
/// and never blocks a thread. Body bytes go out in chunks only while the channel is
/// writable, so a 150 MB file costs a few chunks of memory, not 150 MB.
///
/// Lives on the channel's event loop only; the connection handler owns it.
final class ResponseWriter {
    private enum Phase { case beforeHead, sendingBody, parked, done }
    private enum GateHolds { case head, body }

    private let context: ChannelHandlerContext
    private let plan: ResponsePlan
    private let path: String
    private let counters: ServerCounters
    private let fileIO: NonBlockingFileIO
    private let chunkSize: Int
    /// Called just before `.end` is written, with the future of that write.
    private var onEnd: ((EventLoopFuture<Void>) -> Void)?
    /// Called when the writer closes the connection mid-body (``Faults/closeAfterBytes``).
    private var onCloseEarly: (() -> Void)?

    private var phase = Phase.beforeHead
    /// Body bytes handed to the channel so far (counted as sent once the socket takes them).
    private var sent = 0
    /// The pace clock: `bytesPerSecond` counts from this moment and this many bytes sent.
    /// Restarted when a stall ends, so a released body does not burst to catch up.
    private var paceStart = NIODeadline.now()
    private var pacedFrom = 0
    private var scheduled: Scheduled<Void>?
    private var gateHold: (gate: Gate, token: UInt64, holds: GateHolds)?
    private var stallReleased = false
    private var readInFlight = false
    private var fileClosed = false
    private var pumping = false
    private var lastWrite: EventLoopFuture<Void>?

    init(
        context: ChannelHandlerContext, plan: ResponsePlan, path: String, counters: ServerCounters,
        fileIO: NonBlockingFileIO, chunkSize: Int,
        onEnd: @escaping (EventLoopFuture<Void>) -> Void, onCloseEarly: @escaping () -> Void
    ) {
        self.context = context
        self.plan = plan
        self.path = path
        self.counters = counters
        self.fileIO = fileIO
        self.chunkSize = max(1, chunkSize)
        self.onEnd = onEnd
        self.onCloseEarly = onCloseEarly
    }

    private var faults: Faults { plan.faults }
    private var bodyCount: Int { plan.bodyRange.count }

    /// Begins the response: latency, then the gate if it holds the head, then the head.
    func start() {
        if let latency = faults.latencyBeforeHead, latency > .zero {
            scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(latency)) { [self] in
                scheduled = nil
                afterLatency()
            }
        } else {
            afterLatency()
        }
    }

    /// The channel may take more bytes again.
    func writabilityChanged() {
        if phase == .sendingBody && context.channel.isWritable { pump() }
    }

    /// The connection is gone (or the handler removed): stop, and release gate and file.
    func abort() {
        guard phase != .done else { return }
        phase = .done
        scheduled?.cancel()
        scheduled = nil
        if let hold = gateHold { hold.gate.cancelHold(hold.token) }
        gateHold = nil
        finishUp()
    }

    // MARK: Steps

    private func afterLatency() {
        guard phase == .beforeHead else { return }
        if faults.gateHoldsHead, let gate = faults.gate, park(at: gate, holding: .head) { return }
        sendHead()
    }

    private func sendHead() {
        phase = .sendingBody
        context.write(NIOAny(HTTPServerResponsePart.head(plan.head)), promise: nil)
        context.flush()
        paceStart = .now()
        pump()
    }

    /// Holds the response at `gate`; returns `false` if the gate is open and it may go on.
    private func park(at gate: Gate, holding: GateHolds) -> Bool {
        let loop = context.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        guard let token = gate.hold({ loop.execute { bound.value.gateOpened() } }) else { return false }
        gateHold = (gate, token, holding)
        phase = .parked
        return true
    }

    private func gateOpened() {
        guard phase == .parked, let hold = gateHold else { return }
        gateHold = nil
        switch hold.holds {
        case .head:
            sendHead()
        case .body:
            stallReleased = true
            phase = .sendingBody
            paceStart = .now()
            pacedFrom = sent
            pump()
        }
    }

    /// Sends body chunks while the socket, the pace and the faults allow, then arranges to
    /// be called again (writability, timer, file read, gate) or ends the response.
    private func pump() {
        guard !pumping else { return }  // a write or flush re-entered us; the loop below goes on
        pumping = true
        defer { pumping = false }
        while phase == .sendingBody && !readInFlight && scheduled == nil {
            if let stall = faults.stallAfterBytes, !stallReleased, sent >= stall {
                if let gate = faults.gate {
                    if park(at: gate, holding: .body) { return }
                    stallReleased = true  // the gate is already open
                    continue
                }
                phase = .parked  // stalled for good: the client has to give up
                return
            }
            if let close = faults.closeAfterBytes, sent >= close {
                closeEarly()
                return
            }
            if sent >= bodyCount {
                finish()
                return
            }
            guard context.channel.isWritable else { return }
            var count = min(chunkSize, bodyCount - sent)
            if let stall = faults.stallAfterBytes, !stallReleased { count = min(count, stall - sent) }
            if let close = faults.closeAfterBytes { count = min(count, close - sent) }
            if let rate = faults.bytesPerSecond, rate > 0 {
                count = min(count, max(1, min(chunkSize, rate / 20)))
                let paced = Double(sent - pacedFrom + count)
                let due = paceStart + .nanoseconds(Int64((paced / Double(rate) * 1e9).rounded(.up)))
                if due > .now() {
                    scheduled = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) { [self] in
                        scheduled = nil
                        pump()
                    }
                    return
                }
            }
            send(count)
        }
    }

    private func send(_ count: Int) {
        let offset = plan.bodyRange.lowerBound + sent
        switch plan.source {
        case .memory(let bytes):
            write(context.channel.allocator.buffer(bytes: bytes[offset..<(offset + count)]))
        case .file(let handle):
            readInFlight = true
            let read = fileIO.read(
                fileHandle: handle, fromOffset: Int64(offset), byteCount: count,
                allocator: context.channel.allocator, eventLoop: context.eventLoop)
            read.assumeIsolated().whenComplete { [self] result in
                readInFlight = false
                guard phase == .sendingBody else {
                    closeFileIfIdle()  // aborted while reading
                    return
                }
                switch result {
                case .success(let buffer) where buffer.readableBytes > 0:
                    write(buffer)
                    pump()
                default:
                    // The file shrank or became unreadable: end the lie where it stands.
                    closeEarly()
                }
            }
        }
    }

    private func write(_ buffer: ByteBuffer) {
        let count = buffer.readableBytes
        sent += count
        let promise = context.eventLoop.makePromise(of: Void.self)
        let counters = self.counters, path = self.path
        promise.futureResult.whenSuccess { counters.bodyBytesSent(count, path: path) }
        lastWrite = promise.futureResult
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: promise)
        context.flush()
    }

    /// The whole body is out: write `.end`, count the response as complete.
    private func finish() {
        withExtendedLifetime(self) {
            phase = .done
            let promise = context.eventLoop.makePromise(of: Void.self)
            let counters = self.counters, path = self.path
            promise.futureResult.whenSuccess { counters.responseCompleted(path: path) }
            // The handler learns first: writing `.end` may deliver a pipelined request at once.
            onEnd?(promise.futureResult)
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: promise)
            finishUp()
        }
    }

    /// Closes the connection short of the promised body, once the bytes sent so far are out.
    private func closeEarly() {
        withExtendedLifetime(self) {
            phase = .done
            onCloseEarly?()
            let context = self.context
            if let lastWrite {
                lastWrite.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
            finishUp()
        }
    }

    private func finishUp() {
        onEnd = nil
        onCloseEarly = nil
        closeFileIfIdle()
    }

    /// Closes the response's file unless a read still uses it (its completion calls back).
    private func closeFileIfIdle() {
        guard !readInFlight, !fileClosed, let handle = plan.fileToClose else { return }
        fileClosed = true
        try? handle.close()
    }
}
