import ImagoConformance

/// The toy loader with AsyncImage's source-change profile (`.reloadsOnSourceChange`): two
/// controls that must pass every applicable rule, one per way the profile allows (the new load's
/// `loading` published before `setSource(_:)` returns, or the old phase kept until a turn later),
/// and one mutant per bug of the profile, each expected to fail exactly its rules.
public enum ReloadingSubjects {
    static let capabilities = MutantSubjects.capabilities.union(.reloadsOnSourceChange)

    /// `toy-reloads-on-source-change`: `setSource(B)` publishes `loading(previous: A)` at once.
    public static var reloads: ConformanceSubject { control("toy-reloads-on-source-change", .reloads) }

    /// `toy-reloads-keeping-phase`: `setSource(B)` keeps A's phase until B's `loading` a turn later.
    public static var reloadsKeepingPhase: ConformanceSubject {
        control("toy-reloads-keeping-phase", .reloadsKeepingPhase)
    }

    /// The controls, then `mutant-<bug>` for each bug of the profile.
    public static var all: [ConformanceSubject] { [reloads, reloadsKeepingPhase] + ToySourceChange.Bug.allCases.map(subject) }

    static func control(_ name: String, _ mode: ToySourceChange.Mode) -> ConformanceSubject {
        ConformanceSubject(name: name, kind: .other, capabilities: capabilities) { context in
            try ToyLoader(context: context, bugs: [], sourceChange: ToySourceChange(mode: mode))
        }
    }

    static func subject(_ bug: ToySourceChange.Bug) -> ConformanceSubject {
        ConformanceSubject(name: "mutant-\(bug.rawValue)", kind: .mutant, capabilities: capabilities,
                           expectedToFail: caughtBy(bug)) { context in
            try ToyLoader(context: context, bugs: [], sourceChange: ToySourceChange(mode: .reloads, bug: bug))
        }
    }

    /// The rules that catch `bug`: its mutant must fail exactly these.
    static func caughtBy(_ bug: ToySourceChange.Bug) -> [String] {
        switch bug {
        case .staleResultAfterReload: ["SOURCE-1"]
        case .supersededCancelPublished: ["TRANS-4", "SOURCE-1"]
        }
    }
}
