import Foundation
import Logging

/// One transport request as it is reported: what it fetched and when it started (nil when no
/// one reads stage timings, `PipelineDiagnostics.measuresTime`).
struct FetchAttemptReport: Sendable {
    let sourceKey: String
    let strategy: FetchStrategy
    /// 1 for the first request of a fetch; retries and re-asks count on.
    let attempt: Int
    let startedAt: ContinuousClock.Instant?
}

extension PipelineDiagnostics {
    /// A transport request starts, after waiting for a network slot since `queuedAt`.
    func fetchStarted(_ request: FetchRequest, sourceKey: String, attempt: Int,
                      queuedAt: ContinuousClock.Instant?) -> FetchAttemptReport {
        let startedAt = now()
        record { $0.fetches += 1 }
        emit(.fetchStart, sourceKey, at: startedAt ?? .now)
        if let metrics {
            metrics.fetches[request.strategy]?.increment()
            if let queuedAt, let startedAt { metrics.fetchQueueWait.recordNanoseconds((startedAt - queuedAt).nanoseconds) }
        }
        logger.debug("Fetch started", metadata: {
            var metadata: Logger.Metadata = ["source": "\(sourceKey)", "strategy": "\(request.strategy)", "attempt": "\(attempt)"]
            if request.headers.keys.contains(where: { $0.lowercased().hasPrefix("if-") }) { metadata["conditional"] = "true" }
            if let range = request.headers.first(where: { $0.key.lowercased() == "range" })?.value { metadata["range"] = "\(range)" }
            return metadata
        }())
        return FetchAttemptReport(sourceKey: sourceKey, strategy: request.strategy, attempt: attempt, startedAt: startedAt)
    }

    /// The first body bytes of `fetch` arrived (reported once per request by the caller).
    func firstByte(_ fetch: FetchAttemptReport) {
        let now = now()
        emit(.firstByte, fetch.sourceKey, at: now ?? .now)
        if let metrics, let now, let startedAt = fetch.startedAt {
            metrics.firstBytes[fetch.strategy]?.recordNanoseconds((now - startedAt).nanoseconds)
        }
    }

    /// The transport request ended with `result`.
    func fetchEnded(_ fetch: FetchAttemptReport, _ result: Result<FetchResult, FetchError>) {
        let now = now()
        let httpVersion = try? result.get().head.httpVersion
        emit(.fetchEnd, fetch.sourceKey, at: now ?? .now, httpVersion: httpVersion)
        let duration = now.flatMap { end in fetch.startedAt.map { end - $0 } }
        if let metrics, let duration {
            let outcome: PipelineMetrics.FetchOutcome = switch result {
            case .success: .success
            case .failure(.cancelled): .cancelled
            case .failure: .failure
            }
            metrics.fetchDurations[fetch.strategy]?[outcome]?.recordNanoseconds(duration.nanoseconds)
        }
        logger.debug("Fetch ended", metadata: {
            var metadata: Logger.Metadata = ["source": "\(fetch.sourceKey)", "strategy": "\(fetch.strategy)", "attempt": "\(fetch.attempt)"]
            switch result {
            case .success(let response):
                metadata["status"] = "\(response.head.statusCode)"
                if let httpVersion { metadata["http_version"] = "\(httpVersion)" }
                if response.resumedFrom > 0 { metadata["resumed_from"] = "\(response.resumedFrom)" }
            case .failure(let error):
                metadata["error"] = "\(error.detail)"
            }
            if let duration { metadata["duration_ms"] = duration.logMilliseconds }
            return metadata
        }())
    }

    /// Attempt `attempt` failed with `error` and the fetch is asked again after `delay`.
    func retrying(_ sourceKey: String, attempt: Int, after error: FetchError, delay: Duration) {
        emit(.retry, sourceKey)
        metrics?.retries[PipelineMetrics.RetryReason(error)]?.increment()
        logger.debug("Retrying fetch", metadata: [
            "source": "\(sourceKey)", "attempt": "\(attempt)", "reason": "\(error.detail)", "delay_ms": delay.logMilliseconds,
        ])
    }

    /// Attempt `attempt` failed with `error` and the fetch ends with it: `decision` says why.
    func notRetried(_ sourceKey: String, attempt: Int, after error: FetchError, _ decision: RetryPolicy.Decision) {
        logger.debug("Fetch failed, not retried", metadata: [
            "source": "\(sourceKey)", "attempt": "\(attempt)", "error": "\(error.detail)", "why": "\(decision)",
        ])
    }

    /// A download to file completed by continuing a kept partial of `bytes` bytes (a 206).
    func resumed(_ sourceKey: String, bytes: Int) {
        record { $0.resumedDownloads += 1; $0.resumedBytes += bytes }
        emit(.resumed, sourceKey)
        if let metrics {
            metrics.resumedDownloads.increment()
            metrics.resumedBytes.increment(by: bytes)
        }
        logger.debug("Download resumed", metadata: ["source": "\(sourceKey)", "resumed_bytes": "\(bytes)"])
    }
}

extension Duration {
    /// Milliseconds with up to three decimals, for log metadata.
    var logMilliseconds: Logger.MetadataValue {
        .stringConvertible((seconds * 1_000_000).rounded() / 1000)
    }
}
