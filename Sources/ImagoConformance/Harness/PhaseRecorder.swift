import Foundation
import Synchronization

/// Everything a model published, in order, with the thread it arrived on (ORDER-1).
public final class PhaseRecorder: Sendable {
    private struct Event {
        let phase: ObservedPhase
        let onMainThread: Bool
        let at: ContinuousClock.Instant
    }
    private let log = EventLog()
    /// When the recorder attached its observer: the model's phase then is the first it receives.
    public let attachedAt: ContinuousClock.Instant

    private final class EventLog: Sendable {
        let events = Mutex<[Event]>([])
    }

    /// Starts observing `model`; the current phase arrives first (ORDER-2).
    @MainActor
    public init(_ model: any ModelUnderTest) {
        attachedAt = .now
        model.observe { [log] phase in
            let onMain = MainQueueMarker.isOnMainActor
            let now = ContinuousClock.now
            log.events.withLock { $0.append(Event(phase: phase, onMainThread: onMain, at: now)) }
        }
    }


    /// Every phase received so far, in order (the current one at creation first).
    public var phases: [ObservedPhase] { log.events.withLock { $0.map(\.phase) } }
    /// Every phase with the moment it reached the observer (PREVIEW-1 bounds the previews' rate
    /// with these: a publication arrives at or after the moment the loader made it).
    public var timedPhases: [(at: ContinuousClock.Instant, phase: ObservedPhase)] {
        log.events.withLock { $0.map { (at: $0.at, phase: $0.phase) } }
    }
    /// How many phases have been received so far.
    public var count: Int { log.events.withLock { $0.count } }
    /// Publications that did not arrive on the main thread.
    public var offMainCount: Int { log.events.withLock { $0.filter { !$0.onMainThread }.count } }

    /// Phases from `index` on.
    public func phases(from index: Int) -> [ObservedPhase] {
        log.events.withLock { Array($0.dropFirst(index).map(\.phase)) }
    }

    /// Waits until `condition` holds over the phases so far; false when `timeout` passed first.
    /// The timeout only turns a hang into a failure: ordering never depends on it.
    public func waitUntil(isolation: isolated (any Actor)? = #isolation, timeout: Duration = .seconds(10),
                          _ condition: ([ObservedPhase]) -> Bool) async -> Bool {
        await ImagoConformance.waitUntil(isolation: isolation, timeout: timeout) { condition(phases) }
    }

    /// Waits until at least `count` terminal phases were published.
    public func waitForTerminal(isolation: isolated (any Actor)? = #isolation, count: Int = 1,
                                timeout: Duration = .seconds(10)) async -> Bool {
        await waitUntil(isolation: isolation, timeout: timeout) { $0.filter(\.isTerminal).count >= count }
    }

    /// The evidence form: `[empty, loading, success(network,64x48#ab12cd34)]`.
    public var transcript: String {
        "[" + phases.map(\.description).joined(separator: ", ") + "]"
    }
}

/// Tells whether code runs on the main actor without trapping. `Thread.isMainThread` is not
/// enough: in an async `main` on Linux, main-actor jobs run on the main dispatch queue but not
/// always on the main thread. A queue-specific value set on the main queue identifies it.
enum MainQueueMarker {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isOnMainActor: Bool { DispatchQueue.getSpecific(key: key) == true || Thread.isMainThread }
}
