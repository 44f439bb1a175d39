import NIOCore
import NIOPosix
import Synchronization

/// What every connection of one server shares: routes, counters, files, default faults,
/// and the list of open connections that shutdown must close.
///
/// Why one object: handlers are created per connection on the event loop and need the
/// same state the test mutates from its own tasks; everything here is either immutable
/// or behind a lock, so it is `Sendable` and safe from both sides.
final class ServerCore: Sendable {
    private struct Mutable: Sendable {
        var defaultFaults: Faults
        var isShuttingDown = false
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    let counters = ServerCounters()
    let routes = RouteTable()
    let fileResolver: FileResolver?
    let threadPool: NIOThreadPool
    let fileIO: NonBlockingFileIO
    let writeChunkSize: Int
    private let mutable: Mutex<Mutable>

    init(fileResolver: FileResolver?, defaultFaults: Faults, writeChunkSize: Int) {
        self.fileResolver = fileResolver
        self.threadPool = NIOThreadPool.singleton
        self.fileIO = NonBlockingFileIO(threadPool: threadPool)
        self.writeChunkSize = max(1, writeChunkSize)
        self.mutable = Mutex(Mutable(defaultFaults: defaultFaults))
    }

    /// Faults for files, for routes without their own, and for 404 / 405 answers.
    var defaultFaults: Faults {
        get { mutable.withLock { $0.defaultFaults } }
        set { mutable.withLock { $0.defaultFaults = newValue } }
    }

    /// Set once shutdown begins: connections closed from then on are not client cancels.
    var isShuttingDown: Bool { mutable.withLock { $0.isShuttingDown } }

    /// Tracks a new connection; `false` if the server is shutting down (refuse it).
    func register(_ channel: any Channel) -> Bool {
        let accepted = mutable.withLock { state -> Bool in
            guard !state.isShuttingDown else { return false }
            state.channels[ObjectIdentifier(channel)] = channel
            return true
        }
        if accepted {
            channel.closeFuture.whenComplete { [self] _ in
                mutable.withLock { _ = $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
            }
        }
        return accepted
    }

    /// Marks the server as shutting down and returns the connections still open, or `nil`
    /// if shutdown had already begun.
    func beginShutdown() -> [any Channel]? {
        mutable.withLock { state -> [any Channel]? in
            guard !state.isShuttingDown else { return nil }
            state.isShuttingDown = true
            return Array(state.channels.values)
        }
    }
}
