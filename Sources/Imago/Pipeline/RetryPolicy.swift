import Foundation

/// Automatic retries of transient fetch failures (connection errors, truncation, and the
/// statuses in `retriedStatuses`: 408, 429, 5xx by default) with exponential back-off. Never for
/// cancellation, TLS failures, redirect loops, bad URLs, idle timeouts, decoding errors or a
/// missing source; never for another status unless `retriedStatuses` says so (RETRY-1).
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts after the first (default 2; 0 disables retries).
    public var maxRetries: Int
    /// Wait before the first retry (default 250 ms).
    public var initialDelay: Duration
    /// Each further wait is this many times the previous one (default 2).
    public var multiplier: Double
    /// Upper bound of one back-off wait (default 4 s).
    public var maxDelay: Duration
    /// The longest `Retry-After` Imago waits for (default 10 s). A server asking for up to this
    /// long is asked again after its wait (or the back-off, whichever is longer); one asking
    /// for more gets no retry: the load fails at once, and the error carries the wait.
    public var maxRetryAfter: Duration
    /// The HTTP statuses asked again (default `transientStatuses`: 408, 429 and 5xx). A 4xx
    /// added here is asked again although the server said the request itself is wrong: only for
    /// a server known to answer, say, 404 while an image is being generated.
    public var retriedStatuses: IndexSet

    /// 408, 429 and 500-599: `FetchError.transientStatuses`.
    public static let transientStatuses = FetchError.transientStatuses

    /// A policy with the defaults: 2 retries, 250 ms doubling up to 4 s, `Retry-After` honoured up
    /// to 10 s, and 408, 429 and 5xx retried.
    public init(maxRetries: Int = 2, initialDelay: Duration = .milliseconds(250),
                multiplier: Double = 2, maxDelay: Duration = .seconds(4),
                maxRetryAfter: Duration = .seconds(10), retriedStatuses: IndexSet = RetryPolicy.transientStatuses) {
        self.maxRetries = maxRetries
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retriedStatuses = retriedStatuses
    }

    /// No automatic retries (`maxRetries` 0): every failure ends the load at once.
    public static let none = RetryPolicy(maxRetries: 0)

    /// The back-off wait before retry number `retry` (1-based).
    public func delay(beforeRetry retry: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(retry, 1) { delay = delay * multiplier }
        return min(delay, maxDelay)
    }

    /// The wait before retry number `retry` after `error`, or nil when there is no retry: the
    /// error is not transient, the retries are used up, or the server's `Retry-After` is longer
    /// than `maxRetryAfter`.
    public func delay(beforeRetry retry: Int, after error: FetchError) -> Duration? {
        guard case .retry(let wait) = decision(beforeRetry: retry, after: error) else { return nil }
        return wait
    }

    /// Whether retry number `retry` (1-based) follows `error`, and after what wait, or why not.
    public func decision(beforeRetry retry: Int, after error: FetchError) -> Decision {
        guard retries(error) else { return .notRetryable }
        guard retry <= maxRetries else { return .retriesUsedUp }
        let backOff = delay(beforeRetry: retry)
        guard case .httpStatus(_, let asked?, _) = error else { return .retry(after: backOff) }
        return asked > maxRetryAfter ? .retryAfterTooLong(asked) : .retry(after: max(asked, backOff))
    }

    /// What the policy makes of a failed attempt (`decision(beforeRetry:after:)`); its
    /// description is the reason in the pipeline's logs.
    public enum Decision: Sendable, Hashable, CustomStringConvertible {
        /// Asked again after this wait.
        case retry(after: Duration)
        /// The error is not worth another attempt (`retries(_:)` is false).
        case notRetryable
        /// `maxRetries` retries were made already.
        case retriesUsedUp
        /// The server's `Retry-After` (this wait) is longer than `maxRetryAfter`.
        case retryAfterTooLong(Duration)

        /// The decision in words, as the pipeline's "not retried" log record gives it as `why`
        /// ("not retryable", "retries used up", "Retry-After (10.0 seconds) longer than
        /// maxRetryAfter"; "retry after 0.25 seconds" for a retry).
        public var description: String {
            switch self {
            case .retry(let wait): "retry after \(wait)"
            case .notRetryable: "not retryable"
            case .retriesUsedUp: "retries used up"
            case .retryAfterTooLong(let wait): "Retry-After (\(wait)) longer than maxRetryAfter"
            }
        }
    }

    /// Whether `error` is worth another attempt: a status in `retriedStatuses`, else a
    /// transient failure (a connection error, a truncation).
    public func retries(_ error: FetchError) -> Bool {
        if case .httpStatus(let code, _, _) = error { return retriedStatuses.contains(code) }
        return error.isTransient
    }
}
