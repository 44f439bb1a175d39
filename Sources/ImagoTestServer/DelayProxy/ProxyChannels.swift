import NIOCore
import Synchronization

/// Every channel a delay proxy has open (clients and upstreams), so that stopping it closes
/// them all; and the flag that makes channels opened during a stop close at once.
final class ProxyChannels: Sendable {
    private struct State: Sendable {
        var isStopping = false
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    private let state = Mutex(State())

    /// Tracks `channel` until it closes; `false` if the proxy is stopping (close it instead).
    func register(_ channel: any Channel) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.isStopping else { return false }
            state.channels[ObjectIdentifier(channel)] = channel
            return true
        }
        if accepted {
            channel.closeFuture.whenComplete { [self] _ in
                state.withLock { _ = $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
            }
        }
        return accepted
    }

    /// Marks the proxy as stopping and returns the channels still open, or `nil` if a stop
    /// had already begun.
    func beginStopping() -> [any Channel]? {
        state.withLock { state -> [any Channel]? in
            guard !state.isStopping else { return nil }
            state.isStopping = true
            return Array(state.channels.values)
        }
    }
}
