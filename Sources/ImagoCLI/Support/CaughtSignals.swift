import Foundation

/// Signals as events instead of a sudden death or a handler in signal context: each is ignored
/// as a signal and delivered through a dispatch source. By default SIGINT and SIGTERM, so a
/// command can cancel its work, remove temporary files and flush what it printed before it
/// exits (with 128 + the signal's number, as a shell expects: 130 for Ctrl-C, 143 for SIGTERM);
/// `imago show` adds SIGHUP and SIGWINCH (a resize).
/// `@unchecked Sendable`: the dispatch sources are set once in `init` and afterwards only
/// cancelled, which Dispatch allows from any thread; the stream is Sendable.
final class CaughtSignals: @unchecked Sendable {
    private let signals: [Int32]
    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Int32>

    /// Starts catching `signals` (default SIGINT and SIGTERM) at once, so a signal that arrives
    /// early is not lost.
    init(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingOldest(4))
        self.stream = stream
        self.signals = signals
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// The next signal caught, or nil when the waiting task was cancelled. One task at a time.
    func next() async -> Int32? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }

    /// Stops catching: the signals' default actions apply again.
    func stop() {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }

    /// The exit status a shell reports for a process ended by `signal`.
    static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }
}
