import Foundation

/// Negative caching in the disk stage: a load's final 404 or 410 is remembered when its
/// response gives it freshness (`HTTPCachePolicy.failureMemory`), as an entry with no payload
/// bytes, so that it survives a restart and is bounded, evicted and matched against `Vary` like
/// any other. A failure without freshness leaves the disk as it was (ERR-4), and with no disk
/// cache nothing is remembered at all.
extension DiskStage {
    /// Remembers `failed` for `sourceKey` when it is a failing status whose head the transport
    /// attached and the policy allows it. `writes`: the request may write the disk.
    func remember(_ failed: FailedExchange, sourceKey: String, writes: Bool) {
        guard writes, let disk = cache, case .httpStatus(_, _, let head?) = failed.error else { return }
        let decision = policy.failureMemory(for: head, requestHeaders: HTTPCachePolicy.sentRequestHeaders,
                                            requestedAt: failed.requestedAt, receivedAt: failed.receivedAt)
        guard case .remember(let metadata, _) = decision else { return }
        let hadEntry = disk.entry(forKey: sourceKey) != nil
        // A failed write costs only the memory of the failure: the next load asks again.
        guard (try? disk.store(Data(), forKey: sourceKey, metadata: metadata)) == true else { return }
        diagnostics.diskStored(sourceKey, replaced: hadEntry)
    }

    /// A fresh remembered failure failed the load without a request.
    func repeatedFailure(_ sourceKey: String, status: Int) -> ImageLoadingError {
        diagnostics.diskRepeatedFailure(sourceKey, status: status)
        return .fetch(.httpStatus(status))
    }
}
