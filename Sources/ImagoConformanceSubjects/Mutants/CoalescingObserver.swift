import ImagoConformance

/// The `observer-coalesces` bug: an observer as an adapter built on `withObservationTracking`
/// makes it. The tracking fires once when the phase changes and the adapter reads the phase on
/// its next main-actor turn, so the observer gets only the latest phase of each turn: every
/// phase published between (an `empty` between a source change and a load, a `loading` before a
/// memory hit) is lost, and what arrives arrives a turn late.
@MainActor
final class CoalescingObserver {
    private let deliver: @Sendable (ObservedPhase) -> Void
    /// The latest phase not yet delivered; non-nil while a delivery is scheduled.
    private var latest: ObservedPhase?

    init(_ deliver: @escaping @Sendable (ObservedPhase) -> Void) { self.deliver = deliver }

    /// Keeps `phase` as the latest and, unless a delivery is already scheduled, schedules one
    /// for the next main-actor turn.
    func publish(_ phase: ObservedPhase) {
        let scheduled = latest != nil
        latest = phase
        guard !scheduled else { return }
        Task { @MainActor in
            guard let phase = self.latest else { return }
            self.latest = nil
            self.deliver(phase)
        }
    }

    /// The observer as the model calls it (on the main actor, as the toy publishes).
    var observer: @Sendable (ObservedPhase) -> Void {
        { phase in MainActor.assumeIsolated { self.publish(phase) } }
    }
}
