import Synchronization

/// Which planted bug, if any, the Imago subjects of this process run with: none unless
/// `imago mutant-run --mutant NAME` (a child of `imago mutants`) switches one on before its first
/// check. Only the harness reads it, when an adapter builds a pipeline, its caches or a model;
/// Imago itself has no planted bug and no switch.
public enum ActiveMutant {
    private static let active = Mutex<Mutant?>(nil)

    /// The bug switched on, nil (the default) for Imago as it ships.
    public static var current: Mutant? { active.withLock { $0 } }

    /// Switches `mutant` on for the rest of the process (nil: none).
    public static func switchOn(_ mutant: Mutant?) { active.withLock { $0 = mutant } }
}
