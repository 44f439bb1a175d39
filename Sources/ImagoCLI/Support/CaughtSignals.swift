import Foundation

/// Signals as events instead of a sudden death or work in signal context. By default SIGINT and
/// SIGTERM, so a command can cancel its work, remove temporary files and flush what it printed
/// before it exits (with 128 + the signal's number, as a shell expects: 130 for Ctrl-C, 143 for
/// SIGTERM); `imago show` adds SIGHUP and SIGWINCH (a resize).
///
/// How: a real handler (`signal(2)`) writes the signal's number into a pipe, and a dispatch
/// source reads the pipe. Not a dispatch signal source with the signal ignored: on Linux that
/// source reads a signalfd, which sees a signal only while it is pending, and a thread that
/// existed before the source and does not block the signal (a runtime or NIO thread) can take
/// a process-directed signal first and, the disposition being "ignore", drop it. A SIGTERM was
/// lost that way once in CI (`imago show` never exited). A handler runs on whichever thread
/// takes the signal, so nothing is lost.
/// `@unchecked Sendable`: the source is set once in `init` and afterwards only cancelled, which
/// Dispatch allows from any thread; the stream is Sendable.
final class CaughtSignals: @unchecked Sendable {
    private let signals: [Int32]
    private let source: any DispatchSourceRead
    private let stream: AsyncStream<Int32>

    /// Starts catching `signals` (default SIGINT and SIGTERM) at once, so a signal that arrives
    /// early is not lost. One instance at a time per process (every command makes one).
    init(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingOldest(16))
        self.stream = stream
        self.signals = signals
        let pipe = SignalPipe.shared
        source = DispatchSource.makeReadSource(fileDescriptor: pipe.readEnd, queue: DispatchQueue(label: "imago.signals"))
        source.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = bytes.withUnsafeMutableBytes { read(pipe.readEnd, $0.baseAddress, $0.count) }
            for byte in bytes.prefix(max(count, 0)) { continuation.yield(Int32(byte)) }
        }
        source.resume()
        for number in signals { signal(number, forwardSignal) }
    }

    /// The next signal caught, or nil when the waiting task was cancelled. One task at a time.
    func next() async -> Int32? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }

    /// Stops catching: the signals' default actions apply again.
    func stop() {
        for number in signals { signal(number, SIG_DFL) }
        source.cancel()
    }

    /// The exit status a shell reports for a process ended by `signal`.
    static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }
}

/// The process's one signal pipe, made on first use and never closed: a handler may still run
/// after a `CaughtSignals` has stopped, and a closed write end could by then be the number of
/// some other file. Both ends close on exec; the write end never blocks (a full pipe drops the
/// byte, and 64 KiB of unread signals means the reader is gone anyway).
private struct SignalPipe: Sendable {
    /// What the dispatch source reads; the write end is `signalWriteEnd`, for the handler.
    let readEnd: Int32

    static let shared: SignalPipe = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            fatalError("imago: no pipe for signals: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        signalWriteEnd = ends[1]
        return SignalPipe(readEnd: ends[0])
    }()
}

/// The write end, read by the handler (a C function cannot capture it). Written once, before
/// any handler is installed.
nonisolated(unsafe) private var signalWriteEnd: Int32 = -1

/// The handler: async-signal-safe (one write(2), errno kept).
private func forwardSignal(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalWriteEnd, &byte, 1)
    errno = saved
}
