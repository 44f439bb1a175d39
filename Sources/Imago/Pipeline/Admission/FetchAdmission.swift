import Foundation
import Synchronization

/// Which fetches go to the transport now, and in what order: the fetch stage's limiter, which
/// knows that an HTTP/2 connection carries many requests at once and an HTTP/1.1 one a single
/// request.
///
/// - **Two lanes.** A fetch to an origin whose last response came over HTTP/1.x, or that has not
///   answered yet (unless the transport may speak HTTP/2 to it, `ImageTransport.mayMultiplex`),
///   takes a *connection* slot (`Limits.maxConcurrentFetches`, default 6: what
///   HTTP/1.1 clients open per host). A fetch to an origin that answered over HTTP/2 takes a
///   *stream* slot (`Limits.maxConcurrentStreams`, default 64): a stream on a connection already
///   open costs no handshake, so capping streams at six would leave a link with latency idle.
///   The lane is judged when a slot frees, so fetches queued for a connection slot move to the
///   stream lane as soon as their origin is seen speaking HTTP/2.
/// - **Priority.** Waiters are admitted highest priority first (judged at admission, so a raised
///   priority counts), first come first served among equals, and none while a load of higher
///   priority is still on its way to the fetch stage (`FetchArrivals`): loads submitted together
///   start in priority order, whichever of their tasks ran first. On the stream lane every admitted
///   fetch competes for the same connection, and AsyncHTTPClient offers no stream priority
///   (neither RFC 9113's deprecated PRIORITY frames nor RFC 9218's urgency): so a fetch there
///   also waits while a fetch of higher priority on that lane has not had its first byte yet.
///   Once those bytes flow, everything goes; a stalled high-priority fetch holds the others back
///   no longer than its idle timeout.
/// - A cancelled waiter leaves the queue.
final class FetchAdmission: Sendable {
    enum Lane: Sendable, Hashable {
        case connections, streams
    }

    private struct Waiter {
        let id: Int
        let origin: String
        /// The transport may speak HTTP/2 to the origin (`ImageTransport.mayMultiplex(_:)`): a
        /// stream slot until the origin has answered.
        let mayMultiplex: Bool
        let priority: @Sendable () -> ImageRequestPriority
        let continuation: CheckedContinuation<FetchSlot?, Never>
    }

    private struct Running {
        let lane: Lane
        let priority: @Sendable () -> ImageRequestPriority
        /// Until its first byte, a stream-lane fetch holds lower priorities back.
        var awaitingFirstByte: Bool
    }

    private struct State {
        var waiters: [Waiter] = []
        var running: [Int: Running] = [:]
        /// Origins that have answered, and whether over HTTP/2.
        var multiplexes: [String: Bool] = [:]
        var nextID = 0
        /// Waiters with an id that have not queued yet; a cancel removes the id.
        var pending: Set<Int> = []

        func count(_ lane: Lane) -> Int { running.values.count { $0.lane == lane } }
        func lane(_ waiter: Waiter) -> Lane { multiplexes[waiter.origin] ?? waiter.mayMultiplex ? .streams : .connections }
    }

    let connectionLimit: Int
    let streamLimit: Int
    /// Loads announced and not yet here: waiters of lower priority wait for them.
    let arrivals = FetchArrivals()
    private let state = Mutex(State())

    init(connectionLimit: Int, streamLimit: Int) {
        self.connectionLimit = max(1, connectionLimit)
        self.streamLimit = max(1, streamLimit)
        arrivals.onChange { [weak self] in self?.rejudge() }
    }

    private func rejudge() {
        let admitted = state.withLock { admitNext(&$0) }
        admitted.forEach { $0.0.continuation.resume(returning: $0.1) }
    }

    /// Fetches queued for a slot (tests use it to know a waiter is in line).
    var waitingCount: Int { state.withLock { $0.waiters.count } }
    /// Fetches holding a slot now, on either lane.
    var runningCount: Int { state.withLock { $0.running.count } }
    /// Fetches holding a slot on `lane` now.
    func runningCount(_ lane: Lane) -> Int { state.withLock { $0.count(lane) } }

    /// `scheme://host:port`: what a connection pool keys its connections by.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// Records what protocol `origin` answered with (`FetchResponseHead.httpVersion`,
    /// `HTTP/2.0`): its later fetches take stream slots from HTTP/2 on, connection slots
    /// otherwise. Waiters are judged again, since their lane may have changed.
    func learn(origin: String, httpVersion: String?) {
        guard let httpVersion else { return }
        let multiplexed = Self.isMultiplexed(httpVersion)
        let admitted = state.withLock { state -> [(Waiter, FetchSlot)] in
            let changed = state.multiplexes.updateValue(multiplexed, forKey: origin) != multiplexed
            return changed ? admitNext(&state) : []
        }
        admitted.forEach { $0.0.continuation.resume(returning: $0.1) }
    }

    /// Whether a response's version (`HTTP/2.0`, `HTTP/1.1`) multiplexes requests.
    static func isMultiplexed(_ httpVersion: String) -> Bool {
        guard httpVersion.hasPrefix("HTTP/"), let major = httpVersion.dropFirst(5).first?.wholeNumberValue else { return false }
        return major >= 2
    }

    /// A slot for a fetch of `source` from `origin`, once one is free and nothing of higher
    /// priority is ahead; nil if cancelled while waiting. The source's announced loads have
    /// arrived.
    func admit(source: String, origin: String, mayMultiplex: Bool,
               priority: @escaping @Sendable () -> ImageRequestPriority) async -> FetchSlot? {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.pending.insert(state.nextID)
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let admitted = state.withLock { state -> [(Waiter, FetchSlot)]? in
                    guard state.pending.remove(id) != nil else { return nil }   // cancelled before it queued
                    state.waiters.append(Waiter(id: id, origin: origin, mayMultiplex: mayMultiplex, priority: priority,
                                                continuation: continuation))
                    return admitNext(&state)
                }
                // Arrived only once queued: the arrival lets lower priorities go, and the judgement
                // it causes must find this fetch in line, or a fetch it held back takes its slot.
                arrivals.arrived(source)
                guard let admitted else { return continuation.resume(returning: nil) }
                admitted.forEach { $0.0.continuation.resume(returning: $0.1) }
            }
        } onCancel: {
            let (left, admitted) = state.withLock { state -> (Waiter?, [(Waiter, FetchSlot)]) in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.pending.remove(id)   // not queued yet: admit will see it gone
                    return (nil, [])
                }
                return (state.waiters.remove(at: index), admitNext(&state))
            }
            left?.continuation.resume(returning: nil)
            admitted.forEach { $0.0.continuation.resume(returning: $0.1) }
        }
    }

    /// Admits every waiter that may start, highest priority first (each priority read once per
    /// pass; the earliest among equals). A waiter whose lane is full or held does not stop the
    /// other lane's.
    private func admitNext(_ state: inout State) -> [(Waiter, FetchSlot)] {
        guard !state.waiters.isEmpty else { return [] }
        let priorities = state.waiters.map { $0.priority() }
        let order = state.waiters.indices.sorted {
            priorities[$0] != priorities[$1] ? priorities[$0] > priorities[$1] : state.waiters[$0].id < state.waiters[$1].id
        }
        var admitted: [(Waiter, FetchSlot)] = [], admittedIndices = IndexSet()
        var slots = [Lane.connections: connectionLimit - state.count(.connections),
                     .streams: streamLimit - state.count(.streams)]
        var streamsHeldBelow = state.running.values.filter { $0.lane == .streams && $0.awaitingFirstByte }.map { $0.priority() }.max()
        let heldBelow = arrivals.highestOnTheWay
        for index in order {
            let waiter = state.waiters[index], lane = state.lane(waiter)
            guard slots[lane, default: 0] > 0 else { continue }
            if let heldBelow, priorities[index] < heldBelow { continue }
            if lane == .streams, let streamsHeldBelow, priorities[index] < streamsHeldBelow { continue }
            slots[lane, default: 0] -= 1
            if lane == .streams { streamsHeldBelow = max(streamsHeldBelow ?? priorities[index], priorities[index]) }
            state.running[waiter.id] = Running(lane: lane, priority: waiter.priority, awaitingFirstByte: lane == .streams)
            admittedIndices.insert(index)
            admitted.append((waiter, FetchSlot(admission: self, id: waiter.id)))
        }
        state.waiters = state.waiters.indices.filter { !admittedIndices.contains($0) }.map { state.waiters[$0] }
        return admitted
    }

    fileprivate func firstByte(_ id: Int) {
        let admitted = state.withLock { state -> [(Waiter, FetchSlot)] in
            guard state.running[id]?.awaitingFirstByte == true else { return [] }
            state.running[id]?.awaitingFirstByte = false
            return admitNext(&state)
        }
        admitted.forEach { $0.0.continuation.resume(returning: $0.1) }
    }

    fileprivate func release(_ id: Int) {
        let admitted = state.withLock { state -> [(Waiter, FetchSlot)] in
            guard state.running.removeValue(forKey: id) != nil else { return [] }
            return admitNext(&state)
        }
        admitted.forEach { $0.0.continuation.resume(returning: $0.1) }
    }
}

/// One fetch's slot in a `FetchAdmission`: says when the fetch's first byte came (which lets
/// lower priorities go on a shared connection) and gives the slot back exactly once, on
/// `release()` or when it goes away.
final class FetchSlot: Sendable {
    private let admission: FetchAdmission
    private let id: Int
    private let released = Atomic(false)

    fileprivate init(admission: FetchAdmission, id: Int) {
        self.admission = admission
        self.id = id
    }

    deinit { release() }

    func firstByte() { admission.firstByte(id) }

    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        admission.release(id)
    }
}
