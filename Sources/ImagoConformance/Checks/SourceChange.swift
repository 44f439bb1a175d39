import Foundation

/// What a source change left, for the checks that go on from it: the phase right after
/// `setSource(_:)` returned, and where the recorder stood.
public struct SourceChange: Sendable {
    /// The phase before the call.
    public let before: ObservedPhase
    /// The phase right after the call returned.
    public let after: ObservedPhase
    /// Whether the loader declares `.reloadsOnSourceChange` (the change started the new load).
    public let reloads: Bool
    /// Whether the model published anything during the call.
    public let published: Bool

    /// Whether the phase after the change is the one before, kept without a publication
    /// (`.reloadsOnSourceChange`'s OpenSwiftUI way: the old phase stays until the new load's first
    /// publication).
    public var keptPhase: Bool { reloads && !published && after == before }
}

extension CheckRun {
    /// Whether the subject declares AsyncImage's source-change profile (`.reloadsOnSourceChange`).
    public var reloadsOnSourceChange: Bool { subject.capabilities.contains(.reloadsOnSourceChange) }

    /// Switches `model` to `source` (a different, non-nil one) and judges the phase right after
    /// the call by the subject's profile: `empty` without `.reloadsOnSourceChange` (TRANS-4); with
    /// it, `loading` of the new source (its `previous` may carry the old image), a memory hit's
    /// `success(origin: .memory)` of the new source, or the old phase kept with nothing published.
    /// Never a failure. The caller calls `load()` next either way: with the profile it is a
    /// repeated load of the new source and must do nothing (SHARE-1).
    @discardableResult
    public func changeSource(_ model: any ModelUnderTest, to source: ConformanceSource, recorder: PhaseRecorder,
                             expecting image: ConformanceImage? = nil, _ step: String) throws -> SourceChange {
        let before = model.phase
        let countBefore = recorder.count
        model.setSource(source)
        let change = SourceChange(before: before, after: model.phase, reloads: reloadsOnSourceChange,
                                  published: recorder.count != countBefore)
        guard change.reloads else {
            try expect(change.after == .empty, "right after \(step) the phase is \(change.after), expected empty: "
                       + "setSource(_:) must cancel the old attempt and publish empty before returning, without "
                       + "loading (or, if the change starts the new load as AsyncImage does, declare "
                       + ".reloadsOnSourceChange)")
            return change
        }
        try expect(change.after.failure == nil, "right after \(step) the phase is \(change.after): a source change "
                   + "cancels the old attempt and is never a failure")
        if change.keptPhase { return change }
        switch change.after {
        case .loading:
            return change
        case .success(.memory, let fingerprint) where image == nil || fingerprint == image?.fingerprint:
            return change
        default:
            throw CheckFailed(reason: "right after \(step) the phase is \(change.after) (was \(before)): with "
                              + ".reloadsOnSourceChange, setSource(_:) starts the new load and leaves loading, a "
                              + "memory hit of the new source, or the old phase unchanged with nothing published")
        }
    }
}
