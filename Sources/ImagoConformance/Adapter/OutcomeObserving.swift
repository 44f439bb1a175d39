/// How one attempt of a model ended, without the pixels' fingerprint: what a benchmark times.
public enum ObservedOutcome: Sendable, Hashable {
    /// The image is ready: where it came from and its size in pixels.
    case success(origin: ObservedOrigin, width: Int, height: Int)
    /// The attempt failed, in the rules' categories.
    case failure(ObservedFailure)
}

/// Optional for a model whose `observe(_:)` does costly work per phase, such as an adapter that
/// fingerprints the pixels (a SHA-256 of every byte) on each success. It reports each attempt's
/// end without that work, so a benchmark (ImagoLoaderBench) times when the pixels are ready
/// rather than the adapter's hashing. The conformance checks never use it; a model without it
/// is timed through `observe(_:)`, its conversion work included.
@MainActor
public protocol OutcomeObserving: ModelUnderTest {
    /// Calls `observer` with every terminal phase the model publishes from now on (the current
    /// one first when it is terminal), as `observe(_:)` would, minus the fingerprint.
    func observeOutcome(_ observer: @escaping @Sendable (ObservedOutcome) -> Void)
}
