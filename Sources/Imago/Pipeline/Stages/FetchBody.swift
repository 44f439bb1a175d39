/// What one fetch strategy does with each attempt's body: the part of a fetch that differs
/// between strategies. The attempts, the back-off and the 304 rule are `FetchStage.fetch`'s,
/// the same for all. Used by one fetch, in one task, one attempt at a time.
protocol FetchBody: AnyObject {
    associatedtype Output: Sendable
    /// How the transport receives the body.
    var strategy: FetchStrategy { get }
    /// Readies the next attempt's request: its body consumer, its Range.
    func prepare(_ request: inout FetchRequest)
    /// Stops the current attempt's consumer at once (the fetching task was cancelled).
    var stopper: @Sendable () -> Void { get }
    /// Why the consumer stopped the transfer, once the attempt returned (nil: it did not).
    func takeRefusal() -> ImageLoadingError?
    /// Settles the attempt's `outcome` (nil: cancelled before it ran); true when it should be
    /// made again at once, not counted as a retry (a range the server could not continue).
    func settle(after outcome: Result<Exchange, FetchError>?) -> Bool
    /// What a completed exchange gives, or nil when a 304 confirmed nothing usable.
    func finish(_ exchange: Exchange, lookup: DiskLookup) async -> Result<Output, ImageLoadingError>?
    /// The attempt failed: lets go of what it held before the back-off.
    func endAttempt()
    /// The fetch ends with `failure`.
    func giveUp(_ failure: ImageLoadingError)
    /// The fetch is over, whichever way: everything still held is released. Idempotent.
    func close()
}

extension FetchBody {
    var stopper: @Sendable () -> Void { {} }
    func takeRefusal() -> ImageLoadingError? { nil }
    func settle(after outcome: Result<Exchange, FetchError>?) -> Bool { false }
    func endAttempt() {}
    func giveUp(_ failure: ImageLoadingError) {}
    func close() {}
}
