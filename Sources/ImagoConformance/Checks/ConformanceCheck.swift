/// One rule of Docs/phase-rules.md as an executable check.
public struct ConformanceCheck: Sendable {
    /// The rule ID, e.g. "SHARE-2".
    public let rule: String
    /// The rule in a line.
    public let summary: String
    /// Capabilities without which the rule does not apply.
    public let requires: LoaderCapabilities
    let body: @MainActor @Sendable (CheckRun) async throws -> Void

    /// A check of your own (run it with `ConformanceRunner(checks:)`): `body` drives loaders
    /// through the `CheckRun` and fails with `run.expect`; returning means pass.
    public init(_ rule: String, _ summary: String, requires: LoaderCapabilities = [],
                _ body: @escaping @MainActor @Sendable (CheckRun) async throws -> Void) {
        self.rule = rule
        self.summary = summary
        self.requires = requires
        self.body = body
    }

    /// Every check, in the order of Docs/phase-rules.md.
    public static let all: [ConformanceCheck] =
        initChecks + transitionChecks + cacheChecks + sourceChecks + shareChecks + [priorityCheck] + errorChecks
        + retryChecks + orderChecks + progressChecks + memoryChecks + [memoryPressureCheck, lifetimeCheck] + diskChecks
        + fetchChecks + [resumptionCheck] + httpChecks + [contentEncodingCheck] + previewChecks + modelChecks

    /// The model-based checks (`MODEL-…`), after the rules' own.
    static let modelChecks: [ConformanceCheck] = [phaseModelCheck, modelHTTPCheck] + modelCacheChecks

    /// Whether `rule` names a model-based check (`MODEL-…`): random operation sequences judged
    /// against the reference model, failing with the rule the loader diverged on.
    public static func isModelBased(_ rule: String) -> Bool { rule.hasPrefix("MODEL-") }

    /// The rule IDs, in order.
    public static var ruleIDs: [String] { all.map(\.rule) }
}
