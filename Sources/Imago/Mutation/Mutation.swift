#if IMAGO_MUTANTS
import Foundation
import Synchronization

/// Which planted bug, if any, this process runs with. Exists only in a build with the `Mutants`
/// package trait (`make mutants`, in `.build-mutants`): a normal build, debug or release, has
/// neither this type nor a single mutant site, so no bug can be switched on by accident.
///
/// The bug is chosen once per process, before the first load: from the environment variable
/// `IMAGO_MUTANT` (default: unset, no bug), or by `activate(_:)`.
public enum Mutation {
    private static let active = Mutex<Mutant?>(
        ProcessInfo.processInfo.environment["IMAGO_MUTANT"].flatMap(Mutant.init(rawValue:)))

    /// The bug switched on, nil for the real pipeline.
    public static var current: Mutant? { active.withLock { $0 } }

    /// Switches `mutant` on for the rest of the process (nil: none).
    public static func activate(_ mutant: Mutant?) { active.withLock { $0 = mutant } }

    /// True at a mutant site when its bug is the one switched on.
    static func on(_ mutant: Mutant) -> Bool { active.withLock { $0 == mutant } }
}
#endif
