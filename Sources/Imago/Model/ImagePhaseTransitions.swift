/// The seam between `ImageLoadingModel` and its decisions: the model hands every event to its
/// transitions, which update the machine and say what to do. The standard ones are the only
/// ones an app gets; the conformance harness gives the model others (through the `Testing` SPI
/// initializer) to prove that the suite catches a model that decides wrongly, without any
/// planted bug in the shipped code.
@_spi(Testing) public protocol ImagePhaseTransitions: Sendable {
    /// Updates `machine` for `event` and returns the effects the model must carry out, in order.
    func handle(_ event: PhaseMachine.Event, in machine: inout PhaseMachine) -> [PhaseMachine.Effect]
}

/// The transitions of Docs/phase-rules.md: `PhaseMachine.handle(_:)`.
@_spi(Testing) public struct StandardPhaseTransitions: ImagePhaseTransitions {
    public init() {}

    public func handle(_ event: PhaseMachine.Event, in machine: inout PhaseMachine) -> [PhaseMachine.Effect] {
        machine.handle(event)
    }
}
