/// A loader configuration the suite runs against.
public struct ConformanceSubject: Sendable {
    /// Whose loader a subject is; reports group and label subjects by it.
    public enum Kind: String, Sendable, Codable {
        /// One of Imago's own configurations.
        case imago
        /// A deliberately broken loader (proof that the suite catches bugs).
        case mutant
        /// Anybody else's loader.
        case other
    }

    /// The subject's name in reports, result logs and `imago conform --subject` (e.g.
    /// `imago-data-memory`); unique within one run.
    public let name: String
    /// Whose loader it is (default `.other`).
    public let kind: Kind
    /// What the loader declares it has: the rules needing a missing capability report n/a.
    public let capabilities: LoaderCapabilities
    /// Rule IDs this subject is known to break (mutants); empty for a loader that should conform.
    public let expectedToFail: [String]
    /// Builds a fresh loader instance for `context`. Called more than once per check when a
    /// check models a restart or a second process (same directories, new instance).
    public let makeLoader: @MainActor @Sendable (LoaderContext) throws -> any LoaderUnderTest

    /// A subject named `name` whose loaders `makeLoader` builds on the main actor, one or more per
    /// check; `kind` defaults to `.other` and `expectedToFail` to none (a loader meant to conform).
    public init(name: String, kind: Kind = .other, capabilities: LoaderCapabilities,
                expectedToFail: [String] = [],
                makeLoader: @escaping @MainActor @Sendable (LoaderContext) throws -> any LoaderUnderTest) {
        self.name = name
        self.kind = kind
        self.capabilities = capabilities
        self.expectedToFail = expectedToFail
        self.makeLoader = makeLoader
    }
}
