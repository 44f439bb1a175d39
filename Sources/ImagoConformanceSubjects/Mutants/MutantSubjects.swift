import ImagoConformance

/// The toy loader without bugs (the control: it must pass every applicable rule, so a mutant's
/// failures come from its bug) and one mutant per `MutantBug`.
public enum MutantSubjects {
    static let capabilities: LoaderCapabilities = [.memoryCache, .memoryPressure, .diskCache, .retries,
                                                   .injectableClock, .progress, .targetSize]

    /// The control subject, `toy-reference`.
    public static var reference: ConformanceSubject {
        ConformanceSubject(name: "toy-reference", kind: .other, capabilities: capabilities) { context in
            try ToyLoader(context: context, bugs: [])
        }
    }

    /// `mutant-<bug>` for each bug, expected to fail exactly `bug.caughtBy`.
    public static var all: [ConformanceSubject] { MutantBug.allCases.map(subject) }

    public static func subject(_ bug: MutantBug) -> ConformanceSubject {
        ConformanceSubject(name: "mutant-\(bug.rawValue)", kind: .mutant, capabilities: capabilities,
                           expectedToFail: bug.caughtBy) { context in
            try ToyLoader(context: context, bugs: [bug])
        }
    }
}
