/// Automatic retries of transient fetch failures (connection errors, timeouts, truncation,
/// 408, 429, 5xx) with exponential back-off. Never for cancellation, other 4xx, decoding errors
/// or a missing source (RETRY-1).
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts after the first (default 2; 0 disables retries).
    public var maxRetries: Int
    /// Wait before the first retry (default 250 ms).
    public var initialDelay: Duration
    /// Each further wait is this many times the previous one (default 2).
    public var multiplier: Double
    /// Upper bound of one wait (default 4 s).
    public var maxDelay: Duration

    public init(maxRetries: Int = 2, initialDelay: Duration = .milliseconds(250),
                multiplier: Double = 2, maxDelay: Duration = .seconds(4)) {
        self.maxRetries = maxRetries
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
    }

    public static let none = RetryPolicy(maxRetries: 0)

    /// The wait before retry number `retry` (1-based).
    public func delay(beforeRetry retry: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(retry, 1) { delay = delay * multiplier }
        return min(delay, maxDelay)
    }

    func shouldRetry(_ error: FetchError, afterRetries retries: Int) -> Bool {
        retries < maxRetries && error.isTransient
    }
}
