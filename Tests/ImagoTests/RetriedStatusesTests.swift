import Foundation
import Testing
import Imago

/// Which failures `RetryPolicy` asks again: `retriedStatuses` decides for HTTP statuses, the
/// kind of failure for the rest (RETRY-1).
@Suite struct RetriedStatusesTests {
    @Test func theDefaultRetries408And429And5xxAndNoOther4xx() {
        let policy = RetryPolicy()
        for code in [408, 429, 500, 503, 599] { #expect(policy.retries(.httpStatus(code)), "\(code)") }
        for code in [400, 401, 403, 404, 410, 451, 499, 600] { #expect(!policy.retries(.httpStatus(code)), "\(code)") }
        #expect(policy.retries(.transport("reset")))
        #expect(policy.retries(.truncated(expected: 10, received: 5)))
        #expect(!policy.retries(.cancelled))
        #expect(policy.delay(beforeRetry: 1, after: .httpStatus(404)) == nil)
    }

    @Test func aStatusAddedIsRetriedWithTheBackOffAndARemovedOneIsNot() {
        var policy = RetryPolicy()
        policy.retriedStatuses.insert(404)
        policy.retriedStatuses.remove(503)
        #expect(policy.delay(beforeRetry: 1, after: .httpStatus(404)) == .milliseconds(250))
        #expect(policy.delay(beforeRetry: 3, after: .httpStatus(404)) == nil, "the retries are used up")
        #expect(policy.delay(beforeRetry: 1, after: .httpStatus(503)) == nil)
        #expect(policy.retries(.transport("reset")), "other failures keep their own rule")
    }

    @Test func theDecisionSaysWhyThereIsNoRetry() {
        let policy = RetryPolicy(maxRetries: 1, maxRetryAfter: .seconds(10))
        #expect(policy.decision(beforeRetry: 1, after: .httpStatus(503)) == .retry(after: .milliseconds(250)))
        #expect(policy.decision(beforeRetry: 1, after: .httpStatus(503, retryAfter: .seconds(2))) == .retry(after: .seconds(2)))
        #expect(policy.decision(beforeRetry: 1, after: .httpStatus(404)) == .notRetryable)
        #expect(policy.decision(beforeRetry: 2, after: .httpStatus(503)) == .retriesUsedUp)
        #expect(policy.decision(beforeRetry: 2, after: .timedOut) == .notRetryable, "not retryable comes first")
        let tooLong = policy.decision(beforeRetry: 1, after: .httpStatus(503, retryAfter: .seconds(60)))
        #expect(tooLong == .retryAfterTooLong(.seconds(60)))
        #expect(policy.delay(beforeRetry: 1, after: .httpStatus(503, retryAfter: .seconds(60))) == nil, "delay reads the decision")
    }
}
