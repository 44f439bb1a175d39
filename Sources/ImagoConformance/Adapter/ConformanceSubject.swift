/// A loader configuration the suite runs against.
public struct ConformanceSubject: Sendable {
    public enum Kind: String, Sendable, Codable {
        /// One of Imago's own configurations.
        case imago
        /// A deliberately broken loader (proof that the suite catches bugs).
        case mutant
        /// Anybody else's loader.
        case other
    }

    public let name: String
    public let kind: Kind
    public let capabilities: LoaderCapabilities
    /// Rule IDs this subject is known to break (mutants); empty for a loader that should conform.
    public let expectedToFail: [String]
    /// Builds a fresh loader instance for `context`. Called more than once per check when a
    /// check models a restart or a second process (same directories, new instance).
    public let makeLoader: @MainActor @Sendable (LoaderContext) throws -> any LoaderUnderTest

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
