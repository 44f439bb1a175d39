/// How the toy's model answers `setSource(_:)`: the suite's default (publish `empty`, wait for
/// `load()`), or AsyncImage's profile (`.reloadsOnSourceChange`: the change starts the new load),
/// with one of the profile's real-world bugs switched on.
struct ToySourceChange: Sendable, Equatable {
    /// What the model shows between the change and the new load's first publication.
    enum Mode: Sendable, Equatable {
        /// `empty` until `load()` (the suite's default).
        case waitsForLoad
        /// `loading` (with the old image as `previous`) before `setSource(_:)` returns, as
        /// SwiftUI's `AsyncImage` starts the new load at once.
        case reloads
        /// The old phase, unchanged, until the new load publishes `loading` a main-actor turn
        /// later: OpenSwiftUI's `AsyncImage`, or a model whose loader is an actor.
        case reloadsKeepingPhase
    }

    /// A bug of the reloading profile.
    enum Bug: String, Sendable, CaseIterable {
        /// The old attempt is neither cancelled nor disowned: its late result lands after the new
        /// source's.
        case staleResultAfterReload = "reload-publishes-stale-result"
        /// The superseded attempt's cancellation lands as `failure(cancelled)`, as a detached
        /// task that is cancelled and still reports its error would publish it.
        case supersededCancelPublished = "reload-publishes-superseded-cancel"
    }

    var mode: Mode = .waitsForLoad
    var bug: Bug?

    /// The suite's default.
    static let waitsForLoad = ToySourceChange()

    var reloads: Bool { mode != .waitsForLoad }
}
